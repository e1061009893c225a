#include "judges/task_plan.h"

#include <algorithm>

namespace tala::judges {

bool HasRequiredFields(const Sample& sample, const Metric& metric) {
  FieldSet need = metric.info().required_fields;
  return (sample.fields() & need) == need;
}

std::string NotThisTurn(const Sample& sample, const Metric& metric) {
  if (sample.turn == 0 || sample.turn == sample.turns ||
      metric.info().conversation_scope == ConversationScope::kEachTurn) {
    return {};
  }
  return "scored once per conversation, on its last turn";
}

bool Scorable(const Sample& sample, const Metric& metric) {
  return HasRequiredFields(sample, metric) && NotThisTurn(sample, metric).empty() &&
         metric.Unscorable(sample).empty();
}

TaskSet PlanTasks(const Sample& sample, const std::vector<std::unique_ptr<Metric>>& metrics) {
  TaskSet tasks = 0;
  for (const auto& m : metrics) {
    if (Scorable(sample, *m)) tasks |= m->tasks();
  }
  return tasks;
}

RowPlan PlanRow(const Sample& sample, const std::vector<std::unique_ptr<Metric>>& metrics) {
  RowPlan plan;
  plan.tasks = PlanTasks(sample, metrics);
  for (const auto& m : metrics) {
    if (!Scorable(sample, *m)) continue;
    for (JudgeQuestion& q : m->questions(sample)) {
      bool seen = false;
      for (JudgeQuestion& have : plan.questions) {
        if (have.key != q.key) continue;
        seen = true;
        have.votes = std::max(have.votes, q.votes);  // the most votes any asker wants
      }
      if (!seen) plan.questions.push_back(std::move(q));
    }
  }
  return plan;
}

}  // namespace tala::judges
