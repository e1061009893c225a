#pragma once
// QuestionParts: the asks of a question that asks several things ("When was PharmaCann founded
// and what is its headquarters location?"), and how a response answers each. Response relevancy
// reads a question of several parts part by part, so an answer to one part scores below an
// answer to all, and its reason names the part left unanswered (issue 52).

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/text/stemmer.h"
#include "judges/offline/relevance_blend.h"
#include "tala/status.h"

namespace tala::judges::offline {

// A part counts as answered from this score on (the scale response_relevancy is read on: a
// relevant answer's median reads 0.9, an irrelevant one's 0.15).
inline constexpr double kPartAnswered = 0.5;

// Split where "and", a comma, a semicolon or a question mark is followed by a wh-word
// ("..., and where...", "...? Who..."), or a question mark by an auxiliary ("...? Is it
// free?"); a part of fewer than three words stays with the one before it. A question that asks
// one thing is one part.
std::vector<std::string> QuestionParts(std::string_view question);

struct PartsReading {
  std::vector<std::string> parts;
  std::vector<double> scores;  // each part's: its best-answering sentence's ResponseRelevance
  size_t answered = 0;         // parts scoring kPartAnswered or more
  double mean = 0;             // the mean part score
  // The first part left unanswered, or empty.
  std::string Unanswered() const;
};

// The encoder's cosines of a response sentence with a part and with what the part asks for.
using PartCosines = std::function<Result<EncoderCosines>(
    const std::string& sentence, const std::string& part, const std::string& asked)>;

// Each part read against each sentence of the response, as response relevancy reads a question
// against a one-sentence answer; a part's score is its best sentence's. For `parts` of two or
// more.
Result<PartsReading> ReadParts(std::vector<std::string> parts, std::string_view response,
                               text::Stemmer& stemmer, const PartCosines& cosines);

}  // namespace tala::judges::offline
