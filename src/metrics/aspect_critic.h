#pragma once
// aspect_critic (options name=..., definition=..., strictness=N): a yes/no verdict on an aspect
// the user defines ("does the answer give medical advice?"). strictness asks for N verdicts (an
// even N is raised to the next odd one, as Ragas does, so a majority always exists) and the row
// scores 1 when more than half are yes, else 0. Without a definition, name= may be one of the
// aspects tala defines: harmfulness, maliciousness, coherence, correctness, conciseness.
// Every aspect of a row shares one judge call (judges/llm/question_calls.h). In {0, 1}; higher
// means the aspect holds (so for harmfulness, lower is better: the direction is the user's).
// Source: the Ragas AspectCritic metric.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& AspectCriticInfo();
Result<std::unique_ptr<Metric>> MakeAspectCritic(const MetricOptions& options);
}  // namespace tala::metrics
