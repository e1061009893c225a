#pragma once
// context_precision (alias llm_context_precision_with_reference) and
// context_precision_without_reference: is the useful context ranked first?
//   With relevance verdicts rel_1..rel_k in rank order (judged against the reference, or
//   against the response for the without-reference variant):
//   value = Σ_k (precision@k × rel_k) / (number of relevant chunks); 0 when none is relevant.
//   In [0, 1]; higher is better. Unlike Ragas there is no 1e-10 epsilon in the denominator, so a
//   perfect ranking scores exactly 1.0.
// Source: Es et al. 2023; the Ragas `llm_context_precision_with_reference` and
// `llm_context_precision_without_reference` metrics.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& ContextPrecisionInfo();
const MetricInfo& ContextPrecisionWithoutReferenceInfo();
Result<std::unique_ptr<Metric>> MakeContextPrecision(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeContextPrecisionWithoutReference(const MetricOptions& options);
}  // namespace tala::metrics
