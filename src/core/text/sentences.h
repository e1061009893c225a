#pragma once
// Sentence segmentation by rules: splits after . ! ? (and at line breaks and list markers),
// but not after abbreviations ("Dr.", "e.g.", "U.S."), initials ("J. K. Rowling"), inside
// decimals ("6.213") or after an ordinal list number. Also splits sentences glued without a space
// ("...century.First for Women...") as scraped text often has. Pure; thread-safe.

#include <string>
#include <string_view>
#include <vector>

namespace tala::text {

std::vector<std::string> SplitSentences(std::string_view text);

// Splits one sentence into claim-sized clauses at ';' and at ", and" / ", but" / ", while" /
// ", whereas" when both sides keep at least three words. Pure.
std::vector<std::string> SplitClauses(std::string_view sentence);

}  // namespace tala::text
