#pragma once
// TextProfile: a text analysed once for lexical matching: folded tokens, their stems, numbers,
// and sentence boundaries, with sorted stem sets for fast membership tests. Built per chunk, per
// reference and per response by the offline judge. Not thread-safe (uses the caller's Stemmer).

#include <string>
#include <string_view>
#include <vector>

#include "core/text/stemmer.h"
#include "core/text/tokenize.h"

namespace tala::judges::offline {

struct ProfiledToken {
  std::string folded;
  std::string stem;
  bool capitalised = false;  // capitalised and not the first word of its sentence
  bool number = false;
  bool stop = false;
  bool negation = false;
  int sentence = 0;
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
};

}  // namespace tala::judges::offline
