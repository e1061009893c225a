#pragma once
// Intents joined by meaning, after the words have grouped them (question_groups.h). The words
// join typos, casing, word order and filler, but not a rewording: "who is the author of X?"
// and "who wrote X?" share only X. A sentence encoder reads those two alike; it also reads
// alike two questions of one template about different things ("What profession do A and B
// share?" against the same with C and D reaches cosine 0.81). So two intents join only when
//   1. they name the same things: the same names (a word written with a capital inside the
//      question, a word English does not know) and numbers, as most of their questions write
//      them (one asker's typo is no name), a name one edit from the other's counting as it;
//   2. the encoder's vectors of their typical wordings reach `min_cosine`;
//   3. their words do not contrast: it is not the case that each says a content word the other
//      does not state (by stem, base form or WordNet synonym). The encoder reads "open" and
//      "close", or "cancel" and "upgrade" my subscription, as near alike (cosine 0.95, 0.84),
//      and so it does "who wrote" and "who is the author of" (0.86); the words tell the first
//      two apart, at the price of the third, which stays two intents for the reviewer to see;
//   4. the more asked leads: an intent joins the closest more-asked intent that has joined no
//      other, and only when it contrasts with none of that one's members (no chains).
// Candidates meet through one key each (their rarest content word with its base forms and
// synonyms, or, with no content word, their rarest name), and only pairs whose names agree and
// whose words do not contrast are embedded, so a log of thousands of intents embeds few and
// never compares all pairs.
// Deterministic: the same grouping gives the same joins.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tala/embedder.h"
#include "tala/status.h"
#include "testset/question_groups.h"

namespace tala::testset {

// Chosen on the development half of the reworded HaluEval intent log and measured on the other
// half (`build/bench/bench_testset meaning`; tests/data/testset/README.md).
inline constexpr double kMeaningSimilarity = 0.7;

// At most this many intents (the most asked first) are read for meaning: a tail of intents
// asked once or twice costs a vector each and rarely changes the pick.
inline constexpr size_t kMaxIntentsByMeaning = 20000;

// How many of a log's distinct wordings say each folded word: a word English does not know
// that recurs spelled the same way is a name even when it is one edit from a word ("kasa").
using WordRecurrence = std::unordered_map<std::string, int64_t>;

// What a question names: its names and numbers, folded and stemmed, sorted and unique. A word
// English does not know is a name unless it is one edit from a word it knows (a typo, "taem"),
// and then a name still when `recurrence` has it in two wordings or more.
std::vector<std::string> NamesOf(std::string_view question,
                                 const WordRecurrence* recurrence = nullptr);

// The wording that stands for an intent: the first question of its most asked phrasing whose
// spelling the log did not have to correct (a typo blurs its vector), else its first.
size_t RepresentativeQuestion(const Grouping& g, const Intent& intent);

struct MeaningJoin {
  int64_t embedded = 0;    // intents whose wording was embedded (they share their names)
  int64_t joined = 0;      // intents that joined another
  int64_t contrasted = 0;  // candidate pairs whose names agree but whose words contrast
};

// Joins the intents of `g` as described above, then orders them again by traffic.
// `questions` are the log's questions GroupQuestions read.
Result<MeaningJoin> JoinByMeaning(Grouping& g, const std::vector<std::string>& questions,
                                  Embedder& embedder, double min_cosine = kMeaningSimilarity);

}  // namespace tala::testset
