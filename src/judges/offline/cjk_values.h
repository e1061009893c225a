#pragma once
// The value check for Chinese and Japanese text, which has no spaces between words: a name or
// value of a claim ("大阪" in "日本の首都は大阪です。") that the context does not hold at all,
// found by characters rather than words (issue 52: a wrong fact in Japanese read as supported).

#include <string>
#include <string_view>

namespace tala::judges::offline {

// The first run of two or more Han or Katakana characters of `claim` none of which occurs in
// `context`, or empty. A run of such characters is a name or a content word in Chinese and
// Japanese; a paraphrase keeps some of its characters, a swapped name or value keeps none.
std::string AbsentCjkRun(std::string_view claim, std::string_view context);

}  // namespace tala::judges::offline
