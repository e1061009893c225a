#pragma once
// answer_correctness: weighted mean of factual F-beta (response vs reference claims, as in
// factual_correctness) and semantic similarity. Defaults: factuality_weight 0.75,
// similarity_weight 0.25, beta 1. value = (w_f·F + w_s·similarity) / (w_f + w_s); F is 1 when
// neither side has claims (as Ragas). Higher is better.
// Source: the Ragas `answer_correctness` metric.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& AnswerCorrectnessInfo();
Result<std::unique_ptr<Metric>> MakeAnswerCorrectness(const MetricOptions& options);
}  // namespace tala::metrics
