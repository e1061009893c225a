#pragma once
// Unicode normalisation for matching text: NFKC, case folding and accent stripping (utf8proc),
// with an ASCII fast path. Pure; thread-safe.

#include <string>
#include <string_view>

namespace tala::text {

// Folded form used for every lexical comparison: "Rhöner Säuwäntzt" -> "rhoner sauwantzt".
// Invalid UTF-8 bytes are dropped rather than failing (input was validated at the edge).
std::string FoldForMatching(std::string_view s);

// Canonical composition (NFC) only: "e" + combining acute and "é" become the same bytes; case,
// width and accents are kept. ASCII and invalid UTF-8 come back as they are.
std::string Canonical(std::string_view s);

// ASCII letters in lower case, every other byte as it is: the same length, so a position in it
// is a position in `s` (unlike FoldForMatching).
std::string AsciiLower(std::string_view s);

// True when the first code point of `s` is an upper-case letter (ASCII or Unicode).
bool StartsUpper(std::string_view s);

}  // namespace tala::text
