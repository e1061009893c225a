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
          "focus words and the kind of answer it asks for), not Ragas' cosine over generated "
          "questions; see docs/metrics.md",
      .offline_measured =
          "with the sentence encoder, HaluEval questions, held-out half: its right answer "
          "above the next question's right answer in 90.4% of pairs; the sentence that "
          "answers above a fluent sentence about something else in 98.8%; a bare right "
          "answer above a same-page sentence that does not answer in 95.1%; an answering "
          "sentence above itself followed by sentences about something else in 89.0%",
      .offline_misses =
          "which of two sentences of the right page answers the question (82.9% held out, "
          "74.4% on the half it was fitted on): it reads topic, answer type, the words next "
          "to the question's gap and whether a sentence only defines the question's subject, "
          "not whether the answer is there; a right "
          "answer that repeats no word of the question (a cause for \"why\", a limit for "
          "\"is it limited?\") reads as off-topic; English only",
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
