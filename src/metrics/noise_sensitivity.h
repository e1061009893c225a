#pragma once
// noise_sensitivity (mode relevant, the default) and noise_sensitivity_irrelevant: how often
// the generator repeats wrong statements it found in the context. Lower is better.
//   relevant mode: share of response claims that are incorrect (disagree with the reference) and
//   supported by at least one relevant chunk. irrelevant mode: share of response claims that are
//   incorrect and supported only by irrelevant chunks (by at least one, and by no relevant one).
//   In [0, 1]. Undefined when the response has no claims. Chunk relevance is the judge's
//   chunk-vs-reference verdict (Ragas derives it from reference claims per chunk).
// Source: the Ragas `noise_sensitivity` metric (Ragas documentation; RAGChecker, Ru et al. 2024).

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& NoiseSensitivityInfo();
const MetricInfo& NoiseSensitivityIrrelevantInfo();
Result<std::unique_ptr<Metric>> MakeNoiseSensitivity(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeNoiseSensitivityIrrelevant(const MetricOptions& options);
}  // namespace tala::metrics
