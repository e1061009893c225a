#pragma once
// Rules about the metrics' own judge questions that every judge applies alike. Pure.

#include <optional>

#include "tala/judge.h"

namespace tala {

// The NVIDIA rating metrics answer some rows without a judge (Ragas' rules): context_relevance
// rates 0 when the question or the joined contexts are blank, or the contexts are the question
// or part of it; response_groundedness rates 0 when the response or the contexts are blank and
// the top rating when the response is the contexts or part of them. The rating both templates
// give then (on the question's own scale), or nullopt when the judge must be asked.
std::optional<double> RatingWithoutJudge(const Sample& sample, const JudgeQuestion& question);
// The top of a rating question's scale: 4 for answer_accuracy, 2 for the others.
double RatingScaleTop(const JudgeQuestion& question);

}  // namespace tala
