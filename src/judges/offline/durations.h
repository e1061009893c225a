#pragma once
// Spans of time stated in a text ("30 days", "a month", "two weeks") and whether two of
// them in different units are the same span: "a month" is 28 to 31 days, "a week" 7 days, "an
// hour" 60 minutes, "a year" 12 months, 52 weeks or 365 days. Claim support reads a claim's
// "a month" as stated by a context's "30 days" (and "2 weeks" by "14 days", where the bare
// number 2 would read as a number the context lacks). The same unit with another number is a
// different span, never the same one: "31 days" against "30 days" stays a changed value.

#include <vector>

#include "judges/offline/text_profile.h"

namespace tala::judges::offline {

struct Duration {
  double quantity = 0;
  const char* unit = "";    // "minute", "hour", "day", "week", "fortnight", "month", "year"
  int quantity_token = -1;  // the number ("30", "two"), or -1 for "a"/"an"
  int unit_token = -1;      // the unit word, or -1 when glued to the number ("8days")
};

std::vector<Duration> Durations(const TextProfile& text);
// True when a and b are in different units and some reading of each is the same span.
bool SameSpan(const Duration& a, const Duration& b);

}  // namespace tala::judges::offline
