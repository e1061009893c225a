#pragma once
// agent_goal_accuracy: did the agent reach the user's goal? The judge reads the conversation
// (user_input as messages, with the tool calls), states the user's goal and the end state, and
// gives 1 when the end state achieves the desired outcome: the row's `reference` when it has
// one (Ragas' AgentGoalAccuracyWithReference), else the goal it inferred (WithoutReference).
// One call (Ragas makes two). In {0, 1}; higher is better.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& AgentGoalAccuracyInfo();
Result<std::unique_ptr<Metric>> MakeAgentGoalAccuracy(const MetricOptions& options);
}  // namespace tala::metrics
