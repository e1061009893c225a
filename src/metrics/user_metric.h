#pragma once
// Metrics defined without code (UserMetricDef, include/tala/metric.h): the prompt is checked
// strictly (known slots only, balanced braces; "{{" and "}}" stand for braces), the row must
// carry every field a slot names, and the question joins the row's criteria call as a choice,
// a score or a ranking. The results key is the metric's name.

#include "metrics/metric_base.h"

namespace tala::metrics {
// kInvalidArgument naming def.where and the fault: an unknown slot, a stray brace, a discrete
// metric without values, a numeric range with min >= max, a name that a built-in metric has.
Result<std::unique_ptr<Metric>> MakeUserMetric(const UserMetricDef& def);
}  // namespace tala::metrics
