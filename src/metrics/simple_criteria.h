#pragma once
// simple_criteria (options name=..., definition=..., min=1, max=5): a score on the user's own
// criterion and integer scale, as the judge gives it (checked to be a whole number in
// [min, max]). Shares the row's one criteria call with aspects and rubrics. Higher means more
// of what the definition describes. Source: the Ragas SimpleCriteriaScore metric.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& SimpleCriteriaInfo();
Result<std::unique_ptr<Metric>> MakeSimpleCriteria(const MetricOptions& options);
}  // namespace tala::metrics
