#pragma once
// RelevanceBlend: the offline judge's relevance scores when the sentence encoder is there: the
// lexical answer reading (answer_relevance.h), the encoder's cosines and, for a question of
// several parts, how each part is answered (question_parts.h), weighed by logistic models
// learned from pairs made mechanically from six public sources of different domains
// (bench/dev_sources.py). bench/judge_sources.py fits them, reports every figure with its source
// left out of the fit, and prints the weights relevance_blend.cc holds (fitted on all six).
//
// The encoder reads meaning the words miss ("Delhi" for "what city"), but not which of two
// sentences of one passage holds the answer, and it ranks a sentence that repeats the question
// above the bare answer ("2010"); so the cosines weigh most on fragments (short answers with no
// clause), and on a sentence the slot (the question's words next to its gap) and whether it is
// about the question at all.

#include <string>
#include <vector>

#include "judges/offline/answer_relevance.h"

namespace tala::judges::offline {

struct EncoderCosines {
  double question = 0;  // the text against the whole question
  double asked = 0;     // the text against what the question asks for (AskedFor: "what city")
};

// How a response answers a question of several parts (question_parts.h): how many parts, and
// the mean of their scores. One part: {1, 1}.
struct PartsScore {
  size_t parts = 1;
  double mean = 1;
};

// response_relevancy's estimate for a response of `sentences` sentences, the share `on_topic` of
// them about the question (OnTopicShare), with the built-in weights: the logistic
// (core/logistic.h) of ResponseBlendFeatures. The judge scores a response with a judge profile's
// weights where it has them; the parts of a question of several (question_parts.h) and testset's
// readings are always read with these.
double ResponseRelevance(const AnswerReading& reading, const EncoderCosines& cosines,
                         double on_topic, size_t sentences, PartsScore parts = {});
// The features that estimate reads, in ResponseBlendNames' order.
std::vector<double> ResponseBlendFeatures(const AnswerReading& reading,
                                          const EncoderCosines& cosines, double on_topic,
                                          size_t sentences, PartsScore parts = {});

// The features of how relevant a context is to the question (the judge scores a chunk as their
// logistic), from the question read against the context as if it were the answer: the share of the
// question's focus it states (coverage), and the share of its own words that are new to the
// question (novelty: a context that only repeats the question tells nothing); the question's words
// around its wh-word that it states (slot: the sentence that fills the question's gap, not one that
// restates its premise); the share of its sentences about the question (OnTopicShare); and the
// encoder's cosines. `bearing` is the share of its sentences that bear on the question
// (OnTopicShare's): the same answer among more sentences that do not help reads lower, as Ragas'
// context relevance counts.
std::vector<double> ContextBlendFeatures(const AnswerReading& reading, double on_topic,
                                         const EncoderCosines& cosines, double bearing);

// The blends' features named (what a judge profile records beside its refitted weights), and
// the built-in weights: the bias, then one per feature. tala align refits them to a project's
// labels, regularised toward these.
const std::vector<std::string>& ResponseBlendNames();
const std::vector<std::string>& ContextBlendNames();
const std::vector<double>& BuiltInResponseWeights();
const std::vector<double>& BuiltInContextWeights();

}  // namespace tala::judges::offline
