#pragma once
// summarization_score (options coeff=0.5, length_penalty=true): how well a summary (response)
// covers its source (reference_contexts, joined by newlines). The judge draws yes/no questions
// from the source's key phrases, then says which the summary alone answers (two calls: the
// second must not see the source). With text and summary lengths in code points:
//   qa = questions answered / questions (no questions → undefined),
//   conciseness = 1 - min(len(summary), len(text)) / (len(text) + 1e-10),
//   score = (1 - coeff)·qa + coeff·conciseness, or qa alone when length_penalty=false (as the
//   current Ragas does; its legacy class gave (1 - coeff)·qa there).
// 8 questions, 7 answered, a 183-character summary of 310 characters: 0.5·0.875 + 0.5·0.4097 =
// 0.6423. In [0, 1]; higher is better. Source: the Ragas SummaryScore metric.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& SummarizationScoreInfo();
Result<std::unique_ptr<Metric>> MakeSummarizationScore(const MetricOptions& options);
}  // namespace tala::metrics
