#pragma once
// context_recall: did the retriever find what the reference answer needs?
//   value = reference claims attributable to the retrieved context / all reference claims.
//   In [0, 1]; higher is better. Undefined when the reference has no claims.
// Source: Es et al. 2023; the Ragas `context_recall` metric.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& ContextRecallInfo();
Result<std::unique_ptr<Metric>> MakeContextRecall(const MetricOptions& options);
}  // namespace tala::metrics
