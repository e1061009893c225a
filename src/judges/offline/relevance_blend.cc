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
  const double x = -5.76 + 5.93 * reading.lexical + 1.04 * (reading.typed ? 1.0 : 0.0) +
                   fragment * (10.40 * cosines.question + 6.94 * cosines.asked +
                               2.44 * reading.novelty - 3.68 * mismatch) +
                   (1.0 - fragment) * (1.07 * cosines.question + 3.27 * cosines.asked) +
                   6.84 * reading.form;
  return Logistic(x);
}

// A plain logistic: the probability that the context is the relevant one of a fit-half pair.
double ContextRelevance(double coverage, const EncoderCosines& cosines) {
  return Logistic(-2.87 + 1.99 * coverage + 3.47 * cosines.question + 1.02 * cosines.asked);
}

}  // namespace tala::judges::offline
