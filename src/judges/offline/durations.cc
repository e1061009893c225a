#include "judges/offline/durations.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string_view>

namespace tala::judges::offline {

namespace {

struct Unit {
  const char* name;
  std::initializer_list<double> minutes;  // the lengths one of it may be
};

constexpr double kDay = 24 * 60;
const Unit kUnits[] = {
    {"minute", {1}},
    {"hour", {60}},
    {"day", {kDay}},
    {"week", {7 * kDay}},
    {"fortnight", {14 * kDay}},
    // A twelfth of a year too, so that "12 months" is "a year".
    {"month", {28 * kDay, 29 * kDay, 30 * kDay, 31 * kDay, 365 * kDay / 12}},
    {"year", {364 * kDay, 365 * kDay, 366 * kDay}},
};

// The unit a word names ("days", "month" -> "day", "month"), or nullptr.
const Unit* UnitNamed(std::string_view word) {
  if (word.size() > 1 && word.back() == 's') word.remove_suffix(1);
  for (const Unit& u : kUnits) {
    if (word == u.name) return &u;
  }
  return nullptr;
}

}  // namespace

std::vector<Duration> Durations(const TextProfile& text) {
  std::vector<Duration> out;
  const std::vector<ProfiledToken>& t = text.tokens();
  // The unit word after token i, if any. Asked only of a number or an article: claim support
  // reads the evidence's spans once per claim, so most tokens must cost nothing here.
  auto unit_after = [&](size_t i) {
    return i + 1 < t.size() ? UnitNamed(t[i + 1].folded) : nullptr;
  };
  for (size_t i = 0; i < t.size(); ++i) {
    if (!t[i].value.empty()) {
      const Unit* unit = UnitNamed(t[i].unit);
      if (unit == nullptr) continue;
      char* end = nullptr;
      const double q = std::strtod(t[i].value.c_str(), &end);
      if (end == t[i].value.c_str() || q <= 0) continue;
      out.push_back({q, unit->name, static_cast<int>(i),
                     unit_after(i) != nullptr ? static_cast<int>(i + 1) : -1});
    } else if (t[i].folded == "a" || t[i].folded == "an") {
      const Unit* unit = unit_after(i);
      if (unit == nullptr || t[i + 1].folded.back() == 's') continue;
      out.push_back({1, unit->name, -1, static_cast<int>(i + 1)});
    }
  }
  return out;
}

bool SameSpan(const Duration& a, const Duration& b) {
  if (std::strcmp(a.unit, b.unit) == 0) return false;
  const Unit* ua = UnitNamed(a.unit);
  const Unit* ub = UnitNamed(b.unit);
  if (ua == nullptr || ub == nullptr) return false;
  for (double x : ua->minutes) {
    for (double y : ub->minutes) {
      if (std::abs(a.quantity * x - b.quantity * y) < 1e-6) return true;
    }
  }
  return false;
}

}  // namespace tala::judges::offline
