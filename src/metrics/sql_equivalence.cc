#include "metrics/sql_equivalence.h"

namespace tala::metrics {

namespace {
class SqlEquivalence : public QuestionMetric {
 public:
  using QuestionMetric::QuestionMetric;
  std::string Unscorable(const Sample& s) const override {
    // Ragas refuses blank queries: there is no SQL for a judge to compare.
    auto blank = [](const std::string& t) {
      return t.find_first_not_of(" \t\r\n") == std::string::npos;
    };
    if (blank(*s.response)) return "the response is blank: no SQL query to compare";
    if (blank(*s.reference)) return "the reference is blank: no SQL query to compare with";
    return {};
  }
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    const JudgedAnswer& a = AnswerIn(v);
    bool same = a.values[0] == 1;
    std::string why = same ? "equivalent" : "not equivalent";
    if (!a.reason.empty()) why += ": " + a.reason;
    return MetricValue::Number(same ? 1.0 : 0.0, why);
  }
};
}  // namespace

const MetricInfo& SqlEquivalenceInfo() {
  static const MetricInfo kInfo{
      .name = "sql_equivalence",
      .aliases = {"llm_sql_equivalence_with_reference"},
      // The schema (reference_contexts) is shown to the judge when the row has one.
      .required_fields = Field::kResponse | Field::kReference,
      .tasks = static_cast<TaskSet>(JudgeTask::kAnswerQuestions),
      .needs_llm = true,
      .summary =
          "the generated SQL returns what the reference SQL returns (schema in "
          "reference_contexts)",
      .offline_note = "needs an LLM judge: undefined with the offline judge",
      .by_default = false,
      .version = "2",  // 2: a blank query is undefined, an answer not 0 or 1 fails
  };
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeSqlEquivalence(const MetricOptions& options) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(SqlEquivalenceInfo().name, options, {}));
  JudgeQuestion q;
  q.kind = JudgeQuestion::Kind::kSqlEquivalence;
  q.key = SqlEquivalenceInfo().name;
  return std::unique_ptr<Metric>(
      std::make_unique<SqlEquivalence>(SqlEquivalenceInfo(), options, std::move(q)));
}

}  // namespace tala::metrics
