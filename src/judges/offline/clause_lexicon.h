#pragma once
// The small word lists the offline judge reads clause structure with: where a clause segment
// starts, pronouns, quantities and their units, polarity words (open/closed, rose/fell, won/lost)
// and universal quantifiers ("always", "anyone"). Our own curated lists; WordNet antonyms add to
// the polarity pairs at check time (structure_check.cc). Immutable tables: thread-safe.

#include <optional>
#include <string>
#include <string_view>

#include "core/text/tokenize.h"

namespace tala::judges::offline {

// A word that opens a new clause segment: and, but, while, whereas, although, though, so,
// because, yet, however, whereby, unless, except.
bool IsSegmentConjunction(std::string_view folded);

// he, she, it, they, him, her, them: read as the subject of the segment before.
bool IsPersonalPronoun(std::string_view folded);

// is, are, was, were, be, been, being: with "by" after the verb, a passive clause.
bool IsBeForm(std::string_view folded);

// A number's value and unit, from the token and the text around it: "$12" -> ("12", "$"),
// "3%" and "3 percent" -> ("3", "%"), "five" -> ("5", ""), "10am" -> ("10", "am"),
// "8 kg" -> ("8", "kg"), "20 days" -> ("20", "day"). Leaves both empty for other tokens.
void ReadQuantity(std::string_view text, const text::Token& token, const text::Token* next,
                  std::string& value, std::string& unit);

// A polarity word's scale and side: "open" and "closed" share a scale with opposite signs, as do
// "rose"/"fell", "allowed"/"forbidden", "won"/"lost". Looked up by the folded word or its stem.
struct Polarity {
  int scale = 0;
  int sign = 0;  // +1 or -1
};
std::optional<Polarity> PolarityOf(std::string_view folded, std::string_view stem);

// always, anyone, anytime, everywhere, unlimited, ...: a claim that adds one of these to
// evidence that lacks it extends what the evidence says ("every 20 minutes from 6am to 11pm" ->
// "around the clock").
bool IsUniversalWord(std::string_view folded);

}  // namespace tala::judges::offline
