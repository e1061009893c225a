#pragma once
// Rules about the metrics' own judge questions that every judge applies alike. Pure.

#include <optional>
#include <string>

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

// The scale checks, one set for every judge (replay, LLM, Python): each returns what is off, for
// the metric's reason and the LLM's repair request, or an empty string when the answer fits.
// A score (kScore, kGEval): a finite number in [lo, hi], whole when the question says integer.
std::string ScoreScaleProblem(const JudgeQuestion& question, double score);
// A rating: 0, 2 or 4 for answer_accuracy; 0, 1 or 2 for the other rating metrics.
std::string RatingScaleProblem(const JudgeQuestion& question, double rating);
// A whole answer, by its question's kind: verdicts, votes, goals and SQL equivalence are 0 or 1;
// scores and a probability-weighted score as above; a label is one of the choices; both ratings
// on their scale, and an expected rating (`weighted`) within it; a ranking orders each of the
// row's `contexts` retrieved contexts once (0-based indices). REQUIRES: HasAnswer(verdicts,
// question) for the verdicts holding `answer`.
std::string AnswerScaleProblem(const JudgeQuestion& question, const JudgedAnswer& answer,
                               size_t contexts);

}  // namespace tala
