#pragma once
// factual_correctness (mode f1 by default, or precision or recall; beta for f1): does the
// response state the reference's facts and nothing that contradicts it?
//   TP = response claims the reference supports; FP = response claims it does not;
//   FN = reference claims the response does not state.
//   precision = TP/(TP+FP); recall = TP/(TP+FN); f-beta = (1+β²)PR/(β²P+R), 0 when P = R = 0.
//   In [0, 1]; higher is better. Undefined when the claims the mode needs are all absent
//   (Ragas returns 0 there, and rounds to 2 decimals; tala does neither).
// Source: the Ragas `factual_correctness` metric.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& FactualCorrectnessInfo();
Result<std::unique_ptr<Metric>> MakeFactualCorrectness(const MetricOptions& options);
// F-beta from claim counts as Ragas defines it (shared with answer_correctness).
double FBeta(size_t tp, size_t fp, size_t fn, double beta);
}  // namespace tala::metrics
