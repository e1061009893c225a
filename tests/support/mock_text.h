#pragma once
// The mock judge's reading of text: lower-cased words, word overlap, sentences. Deterministic
// stand-ins for what a model would judge.

#include <set>
#include <string>
#include <vector>

namespace tala::testing {

// The words of `text` (letters and digits, lower-cased) of at least `min_length` characters,
// and every word that starts with a digit.
std::set<std::string> Words(const std::string& text, size_t min_length = 4);
// Share of `text`'s words that `source` has (0 for a text without words).
double Coverage(const std::string& text, const std::string& source, size_t min_length = 4);
// Sentences ending in . ! or ? followed by a space, a newline or the end.
std::vector<std::string> Sentences(const std::string& text);

}  // namespace tala::testing
