#pragma once
// semantic_similarity (alias answer_similarity): cosine of the response's and the reference's
// embeddings. In [-1, 1]; higher is better. With threshold=T the value is 1 when the cosine
// is at least T, else 0.
// Source: the Ragas `semantic_similarity` metric (Roychowdhury et al. 2023, SAS).

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& SemanticSimilarityInfo();
Result<std::unique_ptr<Metric>> MakeSemanticSimilarity(const MetricOptions& options);
}  // namespace tala::metrics
