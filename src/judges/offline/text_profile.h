#pragma once
// TextProfile: a text analysed once for lexical matching: folded tokens, their stems, numbers
// with their units, sentence and clause-segment boundaries, with sorted stem sets for fast
// membership tests. Built per chunk, per reference and per response by the offline judge.
// Not thread-safe (uses the caller's Stemmer).

#include <string>
#include <string_view>
#include <vector>

#include "core/text/stemmer.h"
#include "core/text/tokenize.h"

namespace tala::judges::offline {

struct ProfiledToken {
  std::string folded;
  std::string stem;
  bool capitalised = false;      // capitalised and not the first word of its sentence
  bool raw_capitalised = false;  // capitalised, wherever it stands
  bool number = false;
  bool stop = false;
  bool negation = false;
  int sentence = 0;
  // The clause segment: a sentence split at , ; : ( ) and before "and", "but", "while", ...
  // (see structure_check.h), numbered across the whole text.
  int segment = 0;
  // Numbers, digits or words ("12", "five" -> "5", "10am" -> "10"), and the unit bound to them:
  // "$", "%", "€", "£", "am"/"pm", or a measure word that follows ("kg", "metres", "days").
  std::string value;
  std::string unit;
};

class TextProfile {
 public:
  TextProfile() = default;
  TextProfile(std::string_view text, text::Stemmer& stemmer);
  // The sorted lookups are views into tokens_: a move keeps them valid (the token buffer moves
  // whole), a copy would not, so copies are forbidden.
  TextProfile(TextProfile&&) = default;
  TextProfile& operator=(TextProfile&&) = default;
  TextProfile(const TextProfile&) = delete;
  TextProfile& operator=(const TextProfile&) = delete;

  const std::vector<ProfiledToken>& tokens() const { return tokens_; }
  int sentence_count() const { return sentence_count_; }
  int segment_count() const { return segment_count_; }
  bool HasStem(std::string_view stem) const;
  bool HasFolded(std::string_view folded) const;
  // True when the stem occurs in sentences [first, last].
  bool HasStemIn(std::string_view stem, int first, int last) const;
  bool HasNegationIn(int first, int last) const;

 private:
  std::vector<ProfiledToken> tokens_;
  std::vector<std::string_view> stems_;                           // sorted unique
  std::vector<std::string_view> folded_;                          // sorted unique
  std::vector<std::pair<std::string_view, int>> stem_sentences_;  // sorted (stem, sentence)
  int sentence_count_ = 0;
  int segment_count_ = 0;
};

}  // namespace tala::judges::offline
