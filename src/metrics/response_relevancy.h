#pragma once
// response_relevancy (alias answer_relevancy): how well the response addresses the question.
//   The judge generates N questions the response answers (default N = 3), each flagged
//   noncommittal or not; value = mean cosine(user_input, generated question), and 0 when every
//   generated question is noncommittal. Cosines can be negative, so the value lies in [-1, 1];
//   higher is better. Undefined when no question was generated.
// Source: Es et al. 2023, section 3 (answer relevance); the Ragas `answer_relevancy` metric.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& ResponseRelevancyInfo();
Result<std::unique_ptr<Metric>> MakeResponseRelevancy(const MetricOptions& options);
}  // namespace tala::metrics
