#pragma once
// id_based_context_precision and id_based_context_recall: retrieval judged by chunk ids, no judge.
//   Ids are compared as sets (a duplicated id counts once).
//   precision = |retrieved ∩ reference| / |retrieved|, undefined with no retrieved id;
//   recall    = |retrieved ∩ reference| / |reference|, undefined with no reference id.
//   In [0, 1]; higher is better.
// Source: the Ragas `id_based_context_precision` / `id_based_context_recall` metrics.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& IdBasedContextPrecisionInfo();
const MetricInfo& IdBasedContextRecallInfo();
Result<std::unique_ptr<Metric>> MakeIdBasedContextPrecision(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeIdBasedContextRecall(const MetricOptions& options);
}  // namespace tala::metrics
