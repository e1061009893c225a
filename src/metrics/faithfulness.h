#pragma once
// faithfulness: the share of the response's claims that the retrieved context supports.
//   value = supported claims / all response claims, in [0, 1]; higher is better.
//   Undefined when the response has no claims. When the judge grades each verdict (the offline
//   judge's support_score), the value is the expected share: the mean of the graded scores.
// Source: Es et al. 2023 (Ragas), section 3; the Ragas `faithfulness` metric.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& FaithfulnessInfo();
Result<std::unique_ptr<Metric>> MakeFaithfulness(const MetricOptions& options);
}  // namespace tala::metrics
