#pragma once
// answer_accuracy, context_relevance, response_groundedness: NVIDIA's cheap single-question
// ratings. Each is two short judge calls, the same question worded two ways (two templates), and
// the row's value is the mean of the two ratings on a 0-1 scale.
//   answer_accuracy (user_input, response, reference): ratings 0, 2 or 4 (the reference not
//     contained / partly / fully, the second template reading from the reference's side);
//     value = (r1/4 + r2/4) / 2.
//   context_relevance (user_input, retrieved_contexts): ratings 0-2 of the joined contexts for
//     the question; value = (r1/2 + r2/2) / 2. A blank question or context, or contexts that are
//     the question or inside it, rate 0 without a call.
//   response_groundedness (response, retrieved_contexts): ratings 0-2 of how well the contexts
//     back the response; a blank response or context rates 0, a response that is the contexts or
//     inside them rates 2, both without a call.
// In [0, 1]; higher is better. Source: the Ragas NVIDIA metrics (AnswerAccuracy,
// ContextRelevance, ResponseGroundedness).

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& AnswerAccuracyInfo();
const MetricInfo& ContextRelevanceInfo();
const MetricInfo& ResponseGroundednessInfo();
Result<std::unique_ptr<Metric>> MakeAnswerAccuracy(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeContextRelevance(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeResponseGroundedness(const MetricOptions& options);
}  // namespace tala::metrics
