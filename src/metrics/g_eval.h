#pragma once
// g_eval (options criteria=..., name=...): a G-Eval-style score from 1 to 10 on the user's
// criterion. The judge first writes evaluation steps for the criterion (a request that holds only
// the criterion, so it is made once and then answered from the cache for every row), then
// follows them to score the row. Where the server returns log-probabilities of the score token,
// the value is the probability-weighted mean over the score values it gives (the results say
// "weighted"), else the plain score. In [1, 10]; higher is better. The results key is
// g_eval(name=NAME), or g_eval(criteria=...) without a name.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& GEvalInfo();
Result<std::unique_ptr<Metric>> MakeGEval(const MetricOptions& options);
}  // namespace tala::metrics
