#include "judges/task_plan.h"

namespace tala::judges {

bool HasRequiredFields(const Sample& sample, const Metric& metric) {
  FieldSet need = metric.info().required_fields;
  return (sample.fields() & need) == need;
}

TaskSet PlanTasks(const Sample& sample, const std::vector<std::unique_ptr<Metric>>& metrics) {
  TaskSet tasks = 0;
  for (const auto& m : metrics) {
    if (HasRequiredFields(sample, *m)) tasks |= m->tasks();
  }
  return tasks;
}

}  // namespace tala::judges
