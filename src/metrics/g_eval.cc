#include "metrics/g_eval.h"

namespace tala::metrics {

namespace {
class GEval : public QuestionMetric {
 public:
  using QuestionMetric::QuestionMetric;
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    const JudgedAnswer& a = AnswerIn(v);
    std::string why = a.weighted
                          ? "weighted over score probabilities (score " + Short(a.values[0]) + ")"
                          : "plain score (no log-probabilities)";
    if (!a.reason.empty()) why += ": " + a.reason;
    return MetricValue::Number(a.weighted.value_or(a.values[0]), why);
  }
};
}  // namespace

const MetricInfo& GEvalInfo() {
  static const MetricInfo kInfo{
      .name = "g_eval",
      .required_fields = static_cast<FieldSet>(Field::kUserInput),
      .tasks = static_cast<TaskSet>(JudgeTask::kAnswerQuestions),
      .needs_llm = true,
      .summary = "G-Eval: steps written for your criteria, then a 1-10 score (criteria=, name=)",
      .offline_note = "needs an LLM judge: undefined with the offline judge",
      .by_default = false,
      .version = "2",  // 2: an answer off the question's scale fails, from every judge
  };
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeGEval(const MetricOptions& options) {
  const std::string& m = GEvalInfo().name;
  TALA_RETURN_IF_ERROR(CheckOptionNames(m, options, {"criteria", "name"}));
  JudgeQuestion q;
  q.kind = JudgeQuestion::Kind::kGEval;
  TALA_ASSIGN_OR_RETURN(q.definition, RequiredOption(m, options, "criteria"));
  q.lo = 1;
  q.hi = 10;
  q.key = options.count("name") ? KeyOf(m, options, {"name"}) : KeyOf(m, options, {"criteria"});
  std::string key = q.key;
  return std::unique_ptr<Metric>(std::make_unique<GEval>(GEvalInfo(), options, std::move(q), key));
}

}  // namespace tala::metrics
