#pragma once
// Task planning: which judge tasks one row needs for the requested metrics, each task once,
// however many metrics share it. Pure.

#include <memory>
#include <string>
#include <vector>

#include "tala/judge.h"
#include "tala/metric.h"

namespace tala::judges {

// True when the sample carries every field the metric requires.
bool HasRequiredFields(const Sample& sample, const Metric& metric);
// Why a metric that scores a conversation once (a row metric, conversation_completeness) is not
// scored on this turn: every turn but the last; empty for any other row or metric.
std::string NotThisTurn(const Sample& sample, const Metric& metric);
// True when the metric can score the row: it has the fields, it scores this turn (NotThisTurn),
// and Metric::Unscorable is empty.
bool Scorable(const Sample& sample, const Metric& metric);

// The union of the tasks of the metrics the row can be scored on.
TaskSet PlanTasks(const Sample& sample, const std::vector<std::unique_ptr<Metric>>& metrics);

// What one row asks the judge: the tasks, and the metrics' own questions, each key once.
struct RowPlan {
  RowPlan(TaskSet t = 0, std::vector<JudgeQuestion> q = {})  // NOLINT: a task set is a plan
      : tasks(t), questions(std::move(q)) {}
  TaskSet tasks = 0;
  std::vector<JudgeQuestion> questions;
};
RowPlan PlanRow(const Sample& sample, const std::vector<std::unique_ptr<Metric>>& metrics);

}  // namespace tala::judges
