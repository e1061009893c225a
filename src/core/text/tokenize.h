#pragma once
// Word tokens for lexical matching. A token is a run of letters or digits (UTF-8 letters
// included); "6.213" and "1,000" stay one number token; "Arthur's" gives "Arthur" (the
// possessive is dropped). Each token keeps its byte offset and whether it was capitalised.
// Pure; thread-safe.

#include <string>
#include <string_view>
#include <vector>

namespace tala::text {

struct Token {
  std::string text;   // folded (lower-case, accents stripped)
  size_t offset = 0;  // byte offset in the original text
  bool capitalised = false;
  bool number = false;  // digits, possibly with a decimal point or thousands separators
};

std::vector<Token> Tokenize(std::string_view text);

}  // namespace tala::text
