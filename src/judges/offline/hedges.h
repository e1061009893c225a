#pragma once
// Hedges and declines. A claim under a hedge ("I think", "probably", "I am not sure, but ...")
// is a claim: it is extracted and verified like any other, so a hedged hallucination is scored,
// not dropped (issue 52). Only a response that declines without claiming anything ("I don't
// know.") is noncommittal.

#include <string>
#include <string_view>

namespace tala::judges::offline {

// What a response commits to: each sentence without its hedge ("I am not sure, but it is
// probably free on Sundays." -> "it is free on Sundays."), and the sentences that only decline
// ("I don't know.", "The documents do not say.") left out. Sentences are joined by a space.
std::string CommittedText(std::string_view response);

// True when the response declines ("I don't know", "cannot be determined", ...) and commits to
// nothing else.
bool IsNoncommittal(std::string_view response);

}  // namespace tala::judges::offline
