#pragma once
// English stop words (function words that carry no claim content), matched on folded tokens.

#include <string_view>

namespace tala::text {

bool IsStopWord(std::string_view folded_token);
// Negation words ("not", "never", "no", ...), matched on folded tokens.
bool IsNegation(std::string_view folded_token);

}  // namespace tala::text
