#include "judges/offline/relevance_blend.h"

#include <cmath>

namespace tala::judges::offline {

namespace {

double Logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace

// The weights are printed by `/usr/bin/python3 bench/fit_relevance.py` (issue 34), rounded to two
// places. Response relevancy's logistic is then stretched (its weights scaled, its bias moved)
// so that the fit half's median relevant answer reads 0.9 and its median irrelevant one 0.15,
// the scale response_relevancy is read on; the order of any two responses is unchanged.
double ResponseRelevance(const AnswerReading& reading, const EncoderCosines& cosines) {
  const double fragment = reading.fragment ? 1.0 : 0.0;
  // A short answer of another kind than the question asks for ("1948" to "who...?").
  const double mismatch = reading.typed_question && !reading.typed ? 1.0 : 0.0;
  const double x = -6.53 + 6.55 * reading.lexical + 1.09 * (reading.typed ? 1.0 : 0.0) +
                   fragment * (12.02 * cosines.question + 8.31 * cosines.asked +
                               2.51 * reading.novelty - 2.72 * mismatch) +
                   (1.0 - fragment) * (1.75 * cosines.question + 3.59 * cosines.asked) +
                   7.37 * reading.form;
  return Logistic(x);
}

// A plain logistic: the probability that the context is the relevant one of a fit-half pair.
double ContextRelevance(double coverage, const EncoderCosines& cosines) {
  return Logistic(-2.87 + 2.06 * coverage + 3.45 * cosines.question + 0.97 * cosines.asked);
}

}  // namespace tala::judges::offline
