#include "metrics/agent_goal_accuracy.h"

namespace tala::metrics {

namespace {
class AgentGoalAccuracy : public QuestionMetric {
 public:
  using QuestionMetric::QuestionMetric;
  MetricValue Score(const Sample& s, const Verdicts& v) const override {
    const JudgedAnswer& a = AnswerIn(v);
    std::string why = std::string(a.values[0] == 1 ? "goal reached" : "goal not reached") +
                      (s.reference ? " (against the reference)" : " (goal inferred)");
    if (!a.reason.empty()) why += ": " + a.reason;
    return MetricValue::Number(a.values[0] == 1 ? 1.0 : 0.0, why);
  }
};
}  // namespace

const MetricInfo& AgentGoalAccuracyInfo() {
  static const MetricInfo kInfo{
      .name = "agent_goal_accuracy",
      .required_fields = static_cast<FieldSet>(Field::kUserInput),
      .tasks = static_cast<TaskSet>(JudgeTask::kAnswerQuestions),
      .needs_llm = true,
      .summary = "did the conversation reach the user's goal (the reference, else inferred)",
      .offline_note = "needs an LLM judge: undefined with the offline judge",
      .by_default = false,
      .version = "2",  // 2: an answer off the question's scale fails, from every judge
  };
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeAgentGoalAccuracy(const MetricOptions& options) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(AgentGoalAccuracyInfo().name, options, {}));
  JudgeQuestion q;
  q.kind = JudgeQuestion::Kind::kGoal;
  q.key = AgentGoalAccuracyInfo().name;
  return std::unique_ptr<Metric>(
      std::make_unique<AgentGoalAccuracy>(AgentGoalAccuracyInfo(), options, std::move(q)));
}

}  // namespace tala::metrics
