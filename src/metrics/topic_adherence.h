#pragma once
// topic_adherence (option mode=precision|recall|f1, default f1): does an assistant keep to the
// topics it is meant to cover? The judge lists the topics the user raised in the conversation,
// each marked answered (or refused) and in reference_topics (or not). With
//   TP = answered and in reference, FP = answered and off reference, FN = refused and in
//   reference:
// precision = TP / (TP + FP), recall = TP / (TP + FN), each 0 when its denominator is 0;
// f1 = 2PR / (P + R), or 0. No topics → 0. Ragas adds 1e-10 to each denominator instead; the
// values agree to 1e-9. 3 topics answered, 1 off reference: precision = 2 / 3 = 0.6667.
// One call (Ragas makes 2 + one per topic). In [0, 1]; higher is better.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& TopicAdherenceInfo();
Result<std::unique_ptr<Metric>> MakeTopicAdherence(const MetricOptions& options);
}  // namespace tala::metrics
