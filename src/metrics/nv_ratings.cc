#include "metrics/nv_ratings.h"

#include "core/judge_questions.h"

namespace tala::metrics {

namespace {

class NvRating : public QuestionMetric {
 public:
  using QuestionMetric::QuestionMetric;
  // Rows a fixed rule rates ask the judge nothing.
  std::vector<JudgeQuestion> questions(const Sample& s) const override {
    if (RatingWithoutJudge(s, question())) return {};
    return {question()};
  }
  MetricValue Score(const Sample& s, const Verdicts& v) const override {
    if (auto rating = RatingWithoutJudge(s, question())) {
      return MetricValue::Number(*rating / RatingScaleTop(question()),
                                 "rated without a judge: a blank input, or one text inside the "
                                 "other");
    }
    const JudgedAnswer& a = AnswerIn(v);
    const double top = RatingScaleTop(question());
    double value = (a.values[0] / top + a.values[1] / top) / 2;
    std::string why =
        "ratings " + Short(a.values[0]) + " and " + Short(a.values[1]) + " of " + Short(top);
    // A judge that rates from a continuous estimate (the offline judge) gives it as the expected
    // rating: two whole ratings keep only five levels of it, and pairs of contexts tie.
    if (a.weighted) {
      value = *a.weighted / top;
      why = "expected rating " + Short(*a.weighted) + " of " + Short(top) + "; " + why;
    }
    if (!a.reason.empty()) why += " (" + a.reason + ")";
    return MetricValue::Number(value, why);
  }
};

MetricInfo RatingInfo(const char* name, FieldSet fields, const char* summary,
                      const char* offline_note =
                          "needs an LLM judge: undefined with the offline judge (except the rows "
                          "its fixed rules rate)",
                      const char* offline_measured = "", const char* offline_misses = "") {
  return MetricInfo{
      .name = name,
      .aliases = {std::string("nv_") + name},
      .required_fields = fields,
      .tasks = static_cast<TaskSet>(JudgeTask::kAnswerQuestions),
      .needs_llm = true,
      .summary = summary,
      .offline_note = offline_note,
      .offline_measured = offline_measured,
      .offline_misses = offline_misses,
      .by_default = false,
      // 2: a rating off its scale fails, from every judge; 3: an expected rating, where the
      // judge gives one, is the score
      .version = "3",
  };
}

Result<std::unique_ptr<Metric>> Make(const MetricInfo& info, const MetricOptions& options) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(info.name, options, {}));
  JudgeQuestion q;
  q.kind = JudgeQuestion::Kind::kRating;
  q.key = info.name;
  q.definition = info.name;  // names the scale and the templates
  return std::unique_ptr<Metric>(std::make_unique<NvRating>(info, options, std::move(q)));
}

}  // namespace

const MetricInfo& AnswerAccuracyInfo() {
  static const MetricInfo kInfo =
      RatingInfo("answer_accuracy", Field::kUserInput | Field::kResponse | Field::kReference,
                 "the response rated against the reference, twice, 0-1 (2 short calls)");
  return kInfo;
}
const MetricInfo& ContextRelevanceInfo() {
  static const MetricInfo kInfo =
      RatingInfo("context_relevance", Field::kUserInput | Field::kRetrievedContexts,
                 "the contexts rated for the question, twice, 0-1 (2 short calls)",
                 "(offline) the expected rating is an estimate (the best chunk's similarity to "
                 "the question by the sentence encoder, the question's words it states, and the "
                 "share of its sentences about the question and bearing on it), not a model's "
                 "reading; undefined without the encoder; see docs/judges.md",
                 "with the sentence encoder, each of six sources held-out in turn (bench/"
                 "judge_sources.py), mean pairwise: the question's own passage above the next "
                 "question's 0.99, above itself padded with two sentences about something else "
                 "0.97; the answering sentence and its neighbours above the whole page 0.79",
                 "which sentence of the right page holds the answer (0.71 held out), and padding "
                 "from the same page in news text (0.63 on ReCoRD); English only");
  return kInfo;
}
const MetricInfo& ResponseGroundednessInfo() {
  static const MetricInfo kInfo =
      RatingInfo("response_groundedness", Field::kResponse | Field::kRetrievedContexts,
                 "the response rated for support by the contexts, twice, 0-1 (2 short calls)");
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeAnswerAccuracy(const MetricOptions& options) {
  return Make(AnswerAccuracyInfo(), options);
}
Result<std::unique_ptr<Metric>> MakeContextRelevance(const MetricOptions& options) {
  return Make(ContextRelevanceInfo(), options);
}
Result<std::unique_ptr<Metric>> MakeResponseGroundedness(const MetricOptions& options) {
  return Make(ResponseGroundednessInfo(), options);
}

}  // namespace tala::metrics
