#pragma once
// AnswerRelevance: the offline judge's estimate of whether a response addresses its question,
// on the scale response_relevancy is read on (an answer to the question near 1, a fluent answer
// about something else near 0). It is not Ragas' definition (no questions are generated and no
// embeddings compared); docs/metrics.md says how it is computed:
// - focus: the question's content words, less the question phrase ("how many", "what time")
//   and auxiliaries; coverage = the share of them the response states (stem, WordNet base form
//   or synonym), a pronoun opening the response standing for one missing word ("It opens at
//   9am" for "When does the pool open?");
// - answer type: what the question phrase asks for (when -> a time or date, which year -> a
//   number with no measure bound to it ("1948", not "275 years"), how many/much/
//   long -> a quantity, where -> a place, who -> a name or person (a month or a name WordNet
//   knows first as a place is not a person, nor a person a place), why -> a reason, yes/no ->
//   yes, no or the question's own predicate), found in words the question does not already have;
//   a short answer naming another kind of thing than the question's noun (WordNet's first sense:
//   "Lawrence County" for "which politician") or a bare number for "what band" is a mismatch;
// - score = 0.6 x coverage + 0.4 x type, where the type counts in full for a short answer
//   ("At desk B.") and only as far as the response speaks of the question's words otherwise, so
//   an off-topic sentence that happens to hold a number gets little for it.
// Pure; the lexicon lookups use the shared WordNet (thread-safe).

#include <string>
#include <string_view>
#include <vector>

#include "judges/offline/text_profile.h"

namespace tala::judges::offline {

// The parts of the reading, for blends that weigh them with other signals.
struct AnswerReading {
  double coverage = 0;          // the share of the question's focus stated (1 = all that counts)
  bool typed_question = false;  // the question asks for a kind of answer (when, how many, who...)
  bool typed = false;           // the response holds a word of that kind new to the question
  bool fragment = false;  // a short answer with no clause: "1889", "At desk B", a name or title
  double novelty = 0;     // the share of the response's content words new to the question
  bool direct = false;    // a fragment or a yes/no: all answer
  // The form of the answer against the form of the question: +1 for a yes or no to a yes/no
  // question, or one of the options of a question that offers some ("A or B?", "Between A and
  // B, who...?"); -1 for a bare yes or no to a question that asks for something else, or a
  // fragment that names none of the options offered; 0 otherwise.
  int form = 0;
  // The question's words around its wh-word that the response states, each weighing less the
  // farther it stands from the wh-word (0.7 per word, six words either side): an answer restates
  // what the question says next to its gap ("...has a head office in what city?" -> "...with its
  // head office in Delhi."), where another sentence of the same page restates the rest of it.
  // A yes/no question's words are counted from its opening verb.
  double slot = 0;
  // The response opens by saying what one of the question's own subjects is: a name most of
  // whose words the question has, then "is/was a/an/the/one" ("Hacker-Pschorr is a brewery in
  // Munich..." for "What does the Hacker-Pschorr Brewery have to limit...?"). Such a sentence
  // restates the question's premise; the answer is usually elsewhere. Never set when the
  // question asks what or who that subject is ("Who was Pablo Trapero?").
  bool defines_subject = false;
  double lexical = 0;  // the score described above
};
// The phrase that says what the question asks for: "what city", "which hip hop record",
// "how many", "who"; empty for a question without one (yes/no). Lower-cased.
std::string AskedFor(const TextProfile& question);

AnswerReading ReadAnswer(const TextProfile& question, const TextProfile& response);

// A response that opens with a personal pronoun ("It was completed in 1889.") read with the
// question's subject in its place ("Eiffel Tower was completed in 1889." for "When was the Eiffel
// Tower completed?"), when the question names one (its longest run of capitalised words after
// its first word) and the response does not already state it. Otherwise the response as it is.
std::string WithPronounResolved(std::string_view question, std::string_view response);

double AnswerRelevance(const TextProfile& question, const TextProfile& response);

// The share of a context's sentences that are about the question: a sentence that states some
// of its focus, or one that opens with a personal pronoun right after such a sentence ("He
// was..."). Ragas' first context relevancy counted relevant sentences the same way, so the right
// page diluted with text about something else reads lower than the page alone.
// Sentences of one or two words ("Yes.") are not counted. `sentences`, when given, receives how
// many were. `bearing`, when given, receives the share of the same sentences that bear on the
// question, as Ragas' context relevance counts the sentences needed to answer it: a sentence
// that states most of the words next to the question's gap (AnswerReading::slot), or holds the
// kind of answer asked for while stating most of its focus (read in the same pass, each
// sentence profiled once).
double OnTopicShare(const TextProfile& question, std::string_view context, text::Stemmer& stemmer,
                    size_t* sentences = nullptr, double* bearing = nullptr);

// The same over a text already split by text::SplitSentences.
double OnTopicShare(const TextProfile& question, const std::vector<std::string>& sentences,
                    text::Stemmer& stemmer, size_t* counted = nullptr, double* bearing = nullptr);

}  // namespace tala::judges::offline
