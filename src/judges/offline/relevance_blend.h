#pragma once
// RelevanceBlend: the offline judge's relevance scores when the sentence encoder is there: the
// lexical answer reading (answer_relevance.h) and the encoder's cosines, weighed by a logistic
// model fitted on real labelled text (the "fit" half of bench/relevance_sets.py's pairs, made
// mechanically from HaluEval; bench/offline_trust.py reports the other half, and the
// hand-written relevancy sets are regression tests). Each is a 0-1 score from a fitted logistic
// (relevance_blend.cc says how each is scaled).
//
// The encoder reads meaning the words miss ("Delhi" for "what city"), but not which of two
// sentences of one passage holds the answer, and it ranks a sentence that repeats the question
// above the bare answer ("2010"); so the cosines weigh most on fragments (short answers with no
// clause), and on a sentence the slot (the question's words next to its gap), whether it is
// about the question at all, and whether it only defines the question's own subject lead.

#include "judges/offline/answer_relevance.h"

namespace tala::judges::offline {

struct EncoderCosines {
  double question = 0;  // the text against the whole question
  double asked = 0;     // the text against what the question asks for (AskedFor: "what city")
};

// response_relevancy's estimate for a response of `sentences` sentences, the share `on_topic` of
// them about the question (OnTopicShare).
double ResponseRelevance(const AnswerReading& reading, const EncoderCosines& cosines,
                         double on_topic, size_t sentences);

// How relevant a context is to the question, from the question read against the context as if
// it were the answer: the share of the question's focus it states (coverage), and the share of
// its own words that are new to the question (novelty: a context that only repeats the
// question tells nothing); the question's words around its wh-word that it states (slot: the
// sentence that fills the question's gap, not one that restates its premise); the share of its
// sentences about the question (OnTopicShare); and the encoder's cosines.
double ContextRelevance(const AnswerReading& reading, double on_topic,
                        const EncoderCosines& cosines);

}  // namespace tala::judges::offline
