#pragma once
// context_entity_recall: share of the reference's named entities that the retrieved context
// mentions. value = |entities(context) ∩ entities(reference)| / |entities(reference)|, each a set
// (matched case-insensitively). In [0, 1]; higher is better. Undefined when the reference names
// no entity (Ragas returns 0 there).
// Source: the Ragas `context_entity_recall` metric.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& ContextEntityRecallInfo();
Result<std::unique_ptr<Metric>> MakeContextEntityRecall(const MetricOptions& options);
}  // namespace tala::metrics
