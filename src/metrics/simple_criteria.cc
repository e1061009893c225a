#include "metrics/simple_criteria.h"

namespace tala::metrics {

namespace {
class SimpleCriteria : public QuestionMetric {
 public:
  using QuestionMetric::QuestionMetric;
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    const JudgedAnswer& a = AnswerIn(v);
    std::string why =
        "score " + Short(a.values[0]) + " on " + Short(question().lo) + ".." + Short(question().hi);
    if (!a.reason.empty()) why += ": " + a.reason;
    return MetricValue::Number(a.values[0], why);
  }
};
}  // namespace

const MetricInfo& SimpleCriteriaInfo() {
  static const MetricInfo kInfo{
      .name = "simple_criteria",
      .required_fields = static_cast<FieldSet>(Field::kUserInput),
      .tasks = static_cast<TaskSet>(JudgeTask::kAnswerQuestions),
      .needs_llm = true,
      .summary = "a score on your own criterion and scale (name=, definition=, min=1, max=5)",
      .offline_note = "needs an LLM judge: undefined with the offline judge",
      .by_default = false,
      .version = "2",  // 2: an answer off the question's scale fails, from every judge
  };
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeSimpleCriteria(const MetricOptions& options) {
  const std::string& m = SimpleCriteriaInfo().name;
  TALA_RETURN_IF_ERROR(CheckOptionNames(m, options, {"name", "definition", "min", "max"}));
  TALA_RETURN_IF_ERROR(RequiredOption(m, options, "name"));
  JudgeQuestion q;
  q.kind = JudgeQuestion::Kind::kScore;
  q.key = KeyOf(m, options, {"name"});
  TALA_ASSIGN_OR_RETURN(q.definition, RequiredOption(m, options, "definition"));
  TALA_ASSIGN_OR_RETURN(q.lo, NumberOption(m, options, "min", 1, -1000, 1000));
  TALA_ASSIGN_OR_RETURN(q.hi, NumberOption(m, options, "max", 5, -1000, 1000));
  if (q.lo != static_cast<int>(q.lo) || q.hi != static_cast<int>(q.hi) || q.lo >= q.hi) {
    return InvalidArgument("metric simple_criteria: min and max must be whole numbers, min < max");
  }
  return std::unique_ptr<Metric>(std::make_unique<SimpleCriteria>(
      SimpleCriteriaInfo(), options, std::move(q), KeyOf(m, options, {"name", "min", "max"})));
}

}  // namespace tala::metrics
