#include "judges/offline/relevance_blend.h"

#include <cmath>

namespace tala::judges::offline {

namespace {

double Logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace

// The weights are printed by `/usr/bin/python3 bench/fit_relevance.py` (issue 34), rounded to two
// places. Response relevancy's logistic is fitted on each text of four kinds of fit-half pairs
// (the right answer against the next question's, the answering sentence against a fluent one
// about something else and against a sentence of the same passage that does not answer, the
// bare answer against that sentence); it is then stretched (its weights scaled, its bias moved)
// so that the fit half's median relevant answer reads 0.9 and its median irrelevant one 0.15,
// the scale response_relevancy is read on; the order of any two responses is unchanged.
double ResponseRelevance(const AnswerReading& reading, const EncoderCosines& cosines,
                         double on_topic, size_t sentences) {
  const double fragment = reading.fragment ? 1.0 : 0.0;
  // A short answer of another kind than the question asks for ("1948" to "who...?").
  const double mismatch = reading.typed_question && !reading.typed ? 1.0 : 0.0;
  // An answer that addresses the question and then goes on about something else: Ragas' answer
  // relevancy counts redundant text against it. The weight is fitted on the fit half's
  // answer_padded pairs with the others held; a response none of whose sentences is about the
  // question is left to the reading below.
  const double padded = sentences >= 2 && on_topic > 0 ? 1.0 - on_topic : 0.0;
  const double sentence = 1.0 - fragment;
  const double x =
      -4.07 - 2.0 * padded - 0.10 * reading.lexical + 0.94 * (reading.typed ? 1.0 : 0.0) +
      fragment * (11.31 * cosines.question + 7.47 * cosines.asked + 1.58 * reading.novelty -
                  4.24 * mismatch) +
      sentence * (1.42 * cosines.question + 1.52 * cosines.asked + 4.33 * reading.slot -
                  1.11 * (reading.defines_subject ? 1.0 : 0.0) + 1.76 * on_topic) +
      6.18 * reading.form;
  return Logistic(x);
}

// A logistic fitted on the order within three kinds of fit-half pairs (the question's own
// passage against the next question's, against its own passage diluted with two sentences of the
// next one, and the passage's answering sentence against another), then stretched so that the
// fit half's median own passage reads 0.9 and its median other passage 0.1.
double ContextRelevance(const AnswerReading& reading, double on_topic,
                        const EncoderCosines& cosines) {
  return Logistic(-2.84 - 1.84 * reading.coverage + 2.83 * cosines.question + 1.66 * cosines.asked -
                  0.20 * reading.novelty + 3.90 * on_topic + 1.90 * reading.slot);
}

}  // namespace tala::judges::offline
