#pragma once
// non_llm_context_precision_with_reference and non_llm_context_recall: context precision and
// recall without a judge or ids, from string similarity to the reference contexts.
//   precision: a retrieved chunk is relevant when its best similarity to a reference context is
//   at least the threshold (default 0.5); then the average-precision formula of
//   context_precision (no epsilon). Undefined with no reference contexts.
//   recall: share of reference contexts whose best similarity to a retrieved chunk exceeds the
//   threshold (strictly, as Ragas); 0 with no retrieved chunk. Undefined with no reference
//   contexts. Options: threshold, distance (as non_llm_string_similarity). Higher is better.
// Source: the Ragas `non_llm_context_precision_with_reference` / `non_llm_context_recall`.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& NonLlmContextPrecisionInfo();
const MetricInfo& NonLlmContextRecallInfo();
Result<std::unique_ptr<Metric>> MakeNonLlmContextPrecision(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeNonLlmContextRecall(const MetricOptions& options);
}  // namespace tala::metrics
