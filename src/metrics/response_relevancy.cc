#include "metrics/response_relevancy.h"

#include <cstdio>

namespace tala::metrics {

const MetricInfo& ResponseRelevancyInfo() {
  static const MetricInfo kInfo{
      .name = "response_relevancy",
      .aliases = {"answer_relevancy"},
      .required_fields = Field::kUserInput | Field::kResponse,
      .tasks = static_cast<TaskSet>(JudgeTask::kGenerateQuestions),
      .needs_llm = true,
      .needs_embeddings = true,
      .direction = Direction::kHigherIsBetter,
      .summary = "mean cosine between the question and questions regenerated from the response",
      .offline_note =
          "(offline) estimates whether the response addresses the question (the question's "
          "focus words, the kind of answer it asks for, each of its parts), not Ragas' cosine "
          "over generated questions; see docs/metrics.md",
      .offline_measured =
          "with the sentence encoder, each of six sources held-out in turn (bench/"
          "judge_sources.py), mean pairwise: the right answer above the next question's 0.80; "
          "the answering sentence above a same-page sentence that does not answer 0.80 and "
          "above a fluent sentence about something else 0.96; a bare right answer above that "
          "non-answering sentence 0.90; a complete answer to a two-part question above a "
          "partial one 0.73",
      .offline_misses =
          "whether the answer is there: it reads topic, the answer's kind, the words next to "
          "the question's gap and the question's parts (answering vs non-answering sentence "
          "0.66 with HaluEval held out); a right answer that repeats no word of the question "
          "(a cause for \"why\") can read as off-topic; English only",
  };
  return kInfo;
}

namespace {
class ResponseRelevancy : public MetricBase {
 public:
  using MetricBase::MetricBase;
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    const auto& questions = *v.generated_questions;
    if (questions.empty()) return MetricValue::Undefined("no question was generated");
    double sum = 0;
    size_t noncommittal = 0;
    for (const GeneratedQuestion& q : questions) {
      sum += *q.cosine;
      noncommittal += q.noncommittal ? 1 : 0;
    }
    if (noncommittal == questions.size()) {
      return MetricValue::Number(0.0, "the response is noncommittal");
    }
    const double mean = sum / questions.size();
    // A judge that generates no questions says what it read instead.
    if (questions.size() == 1 && !questions[0].reading.empty()) {
      return MetricValue::Number(mean, questions[0].reading);
    }
    char cosine[48];
    std::snprintf(cosine, sizeof cosine, "; mean cosine %.4f", mean);
    return MetricValue::Number(mean, Ratio(questions.size() - noncommittal, questions.size(),
                                           "generated questions committal") +
                                         cosine);
  }
};
}  // namespace

Result<std::unique_ptr<Metric>> MakeResponseRelevancy(const MetricOptions& options) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(ResponseRelevancyInfo().name, options, {}));
  return std::unique_ptr<Metric>(new ResponseRelevancy(ResponseRelevancyInfo(), options));
}

}  // namespace tala::metrics
