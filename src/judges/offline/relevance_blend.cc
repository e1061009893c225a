#include "judges/offline/relevance_blend.h"

#include <cstddef>

#include "core/logistic.h"

namespace tala::judges::offline {

namespace {

// The weights below are printed by `/usr/bin/python3 bench/judge_sources.py` (issue 52), fitted
// on the pairs of every development source (bench/dev_sources.py: HaluEval of ../shared/data and
// five ARES query sets of other domains); the same script reports each kind's figure on each
// source left out of the fit. The features are in bench/fit_relevance.py's order (response_x,
// context_x), so the two read alike.
//
// Response relevancy: a logistic fitted on the order within the response kinds' pairs (the right
// answer against the next question's, the answering sentence against a same-page sentence that
// does not answer and against a fluent one about something else, the bare answer, a complete
// answer to a two-part question against a partial one, an answer whose subject is a pronoun),
// stretched so the median answering sentence reads 0.85 and the median fluent sentence about
// something else 0.1; then the weight of an answer's sentences about something else alone, on
// the answer_padded pairs.
constexpr double kResponseBias = -3.50;
constexpr double kResponseWeights[] = {
    3.20,   // lexical reading
    1.88,   // holds the kind of answer asked for
    7.67,   // fragment x cosine with the question
    2.17,   // sentence x cosine with the question
    4.62,   // fragment x cosine with what the question asks for
    2.89,   // sentence x cosine with what the question asks for
    2.62,   // fragment x novelty
    -0.47,  // fragment x answer of another kind
    2.43,   // form (a yes or no, one of the options offered)
    2.25,   // sentence x slot
    0.18,   // sentence x defines the question's subject
    -0.95,  // sentence x share of sentences about the question
    0.00,   // the question has several parts
    4.23,   // several parts x the mean part score
};
constexpr double kPaddedWeight = -13.00;

// Context relevance: a logistic fitted on the order within the context kinds (the question's
// own passage against the next question's, against its own passage diluted with two sentences
// of the next one, the answering sentence and its neighbours against the whole page, and the
// passage's answering sentence against another), stretched so the median own passage reads 0.9
// and the median other passage 0.1.
constexpr double kContextBias = -0.03;
constexpr double kContextWeights[] = {
    -0.42,  // coverage of the question's focus
    3.08,   // cosine with the question
    1.56,   // cosine with what the question asks for
    -2.82,  // novelty
    3.53,   // share of sentences about the question
    -0.63,  // slot
    1.77,   // share of sentences bearing on the question
};

}  // namespace

const std::vector<std::string>& ResponseBlendNames() {
  static const std::vector<std::string> kNames = {
      "lexical",
      "typed",
      "fragment_x_cosine_question",
      "sentence_x_cosine_question",
      "fragment_x_cosine_asked",
      "sentence_x_cosine_asked",
      "fragment_x_novelty",
      "fragment_x_other_kind",
      "form",
      "sentence_x_slot",
      "sentence_x_defines_subject",
      "sentence_x_on_topic",
      "several_parts",
      "several_parts_x_part_mean",
      "padded",
  };
  return kNames;
}

const std::vector<std::string>& ContextBlendNames() {
  static const std::vector<std::string> kNames = {
      "coverage", "cosine_question", "cosine_asked", "novelty", "on_topic", "slot", "bearing"};
  return kNames;
}

const std::vector<double>& BuiltInResponseWeights() {
  static const std::vector<double> kWeights = [] {
    std::vector<double> w = {kResponseBias};
    w.insert(w.end(), std::begin(kResponseWeights), std::end(kResponseWeights));
    w.push_back(kPaddedWeight);
    return w;
  }();
  return kWeights;
}

const std::vector<double>& BuiltInContextWeights() {
  static const std::vector<double> kWeights = [] {
    std::vector<double> w = {kContextBias};
    w.insert(w.end(), std::begin(kContextWeights), std::end(kContextWeights));
    return w;
  }();
  return kWeights;
}

std::vector<double> ResponseBlendFeatures(const AnswerReading& reading,
                                          const EncoderCosines& cosines, double on_topic,
                                          size_t sentences, PartsScore parts) {
  const double f = reading.fragment ? 1.0 : 0.0;
  const double s = 1.0 - f;
  // A short answer of another kind than the question asks for ("1948" to "who...?").
  const double mismatch = reading.typed_question && !reading.typed ? 1.0 : 0.0;
  const double several = parts.parts > 1 ? 1.0 : 0.0;
  // An answer that addresses the question and then goes on about something else: Ragas' answer
  // relevancy counts redundant text against it. A response none of whose sentences is about the
  // question is left to the other features.
  const double padded = sentences >= 2 && on_topic > 0 ? 1.0 - on_topic : 0.0;
  return {reading.lexical,
          reading.typed ? 1.0 : 0.0,
          f * cosines.question,
          s * cosines.question,
          f * cosines.asked,
          s * cosines.asked,
          f * reading.novelty,
          f * mismatch,
          static_cast<double>(reading.form),
          s * reading.slot,
          s * (reading.defines_subject ? 1.0 : 0.0),
          s * on_topic,
          several,
          several * parts.mean,
          padded};
}

double ResponseRelevance(const AnswerReading& reading, const EncoderCosines& cosines,
                         double on_topic, size_t sentences, PartsScore parts) {
  return BlendScore(BuiltInResponseWeights(),
                    ResponseBlendFeatures(reading, cosines, on_topic, sentences, parts));
}

std::vector<double> ContextBlendFeatures(const AnswerReading& reading, double on_topic,
                                         const EncoderCosines& cosines, double bearing) {
  return {reading.coverage, cosines.question, cosines.asked, reading.novelty,
          on_topic,         reading.slot,     bearing};
}

}  // namespace tala::judges::offline
