#include "judges/offline/clause_lexicon.h"

#include <array>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/text/stemmer.h"

namespace tala::judges::offline {

namespace {

bool In(const std::unordered_set<std::string_view>& set, std::string_view w) {
  return set.count(w) > 0;
}

// One scale: the words on its positive side, then those on its negative side. Irregular forms
// are listed; regular inflections reach the same stem.
struct Scale {
  std::vector<const char*> positive;
  std::vector<const char*> negative;
};

const std::vector<Scale>& Scales() {
  static const std::vector<Scale> kScales = {
      {{"open", "opened", "opens", "reopen", "reopened"}, {"closed", "close", "closes", "shut"}},
      {{"allow", "allowed", "permit", "permitted", "permissible", "welcome"},
       {"forbid", "forbidden", "forbids", "prohibit", "prohibited", "ban", "banned", "disallow",
        "disallowed"}},
      {{"rise", "rose", "risen", "increase", "grow", "grew", "grown", "gain", "climb", "jump",
        "soar", "raise", "boost", "expand", "higher"},
       {"fall", "fell", "fallen", "decline", "decrease", "drop", "shrink", "shrank", "shrunk",
        "lower", "plunge", "slump", "reduce", "dip"}},
      {{"win", "won", "wins", "victory", "victorious"}, {"lose", "lost", "loses", "defeat"}},
      {{"true", "correct", "accurate"}, {"false", "incorrect", "wrong", "untrue", "inaccurate"}},
      {{"include", "included", "includes", "including"},
       {"exclude", "excluded", "excludes", "excluding"}},
      {{"approve", "approved", "accept", "accepted", "grant", "granted"},
       {"reject", "rejected", "refuse", "refused", "deny", "denied", "decline"}},
      {{"safe"}, {"unsafe", "dangerous", "hazardous"}},
      {{"enable", "enabled", "activate", "activated"},
       {"disable", "disabled", "deactivate", "deactivated"}},
      {{"survive", "survived", "alive", "living"}, {"die", "died", "dead", "killed"}},
      {{"available", "stock"}, {"unavailable", "sold-out"}},
      {{"mandatory", "compulsory", "required", "obligatory"}, {"optional", "voluntary"}},
      {{"buy", "bought", "purchase", "purchased", "acquire", "acquired"},
       {"sell", "sold", "sells"}},
      {{"hire", "hired", "employ", "appoint", "appointed"},
       {"fired", "dismiss", "dismissed", "sacked"}},
      {{"lock", "locked"}, {"unlock", "unlocked"}},
      {{"public"}, {"private"}},
      {{"legal", "lawful"}, {"illegal", "unlawful"}},
      {{"success", "succeed", "succeeded", "successful", "pass", "passed"},
       {"fail", "failed", "failure", "unsuccessful"}},
      {{"cheap", "inexpensive", "free"}, {"expensive", "costly"}},
      {{"larger", "bigger", "greater", "longer", "taller", "heavier", "older", "more", "above",
        "exceed", "exceeds"},
       {"smaller", "lesser", "shorter", "lighter", "younger", "less", "fewer", "below"}},
      {{"add", "added", "adds"}, {"remove", "removed", "removes"}},
      {{"present", "attend", "attended"}, {"absent"}},
      {{"positive"}, {"negative"}},
      {{"start", "starts", "began", "begin", "begins", "opens"},
       {"end", "ends", "ended", "finish", "finished"}},
      {{"support", "supported", "supports", "favour", "favor"},
       {"oppose", "opposed", "opposes", "against"}},
  };
  return kScales;
}

struct PolarityTable {
  std::unordered_map<std::string, Polarity> by_word;
  PolarityTable() {
    text::Stemmer stemmer;
    const auto& scales = Scales();
    for (size_t s = 0; s < scales.size(); ++s) {
      for (int side : {+1, -1}) {
        for (const char* w : side > 0 ? scales[s].positive : scales[s].negative) {
          Polarity p{static_cast<int>(s) + 1, side};
          by_word.emplace(w, p);
          by_word.emplace(stemmer.Stem(w), p);  // a stem shared by two sides keeps the first
        }
      }
    }
  }
};

const std::unordered_map<std::string_view, int>& NumberWords() {
  static const std::unordered_map<std::string_view, int> kWords = {
      {"zero", 0},     {"one", 1},      {"two", 2},        {"three", 3},     {"four", 4},
      {"five", 5},     {"six", 6},      {"seven", 7},      {"eight", 8},     {"nine", 9},
      {"ten", 10},     {"eleven", 11},  {"twelve", 12},    {"thirteen", 13}, {"fourteen", 14},
      {"fifteen", 15}, {"sixteen", 16}, {"seventeen", 17}, {"eighteen", 18}, {"nineteen", 19},
      {"twenty", 20},  {"thirty", 30},  {"forty", 40},     {"fifty", 50},    {"sixty", 60},
      {"seventy", 70}, {"eighty", 80},  {"ninety", 90},    {"hundred", 100}, {"dozen", 12},
  };
  return kWords;
}

// A measure word after a number, to its unit: "percent" -> "%", "dollars" -> "$", "days" -> "day".
std::string_view UnitWord(std::string_view w) {
  static const std::unordered_map<std::string_view, std::string_view> kUnits = {
      {"percent", "%"},
      {"pct", "%"},
      {"dollars", "$"},
      {"dollar", "$"},
      {"usd", "$"},
      {"euros", "€"},
      {"euro", "€"},
      {"eur", "€"},
      {"pounds", "£"},
      {"gbp", "£"},
      {"cents", "cent"},
      {"cent", "cent"},
      {"kg", "kg"},
      {"kilograms", "kg"},
      {"kilos", "kg"},
      {"g", "g"},
      {"grams", "g"},
      {"mg", "mg"},
      {"km", "km"},
      {"kilometres", "km"},
      {"kilometers", "km"},
      {"m", "m"},
      {"metres", "m"},
      {"meters", "m"},
      {"miles", "mile"},
      {"mile", "mile"},
      {"minutes", "minute"},
      {"minute", "minute"},
      {"hours", "hour"},
      {"hour", "hour"},
      {"days", "day"},
      {"day", "day"},
      {"weeks", "week"},
      {"week", "week"},
      {"months", "month"},
      {"month", "month"},
      {"years", "year"},
      {"year", "year"},
      {"nights", "night"},
      {"night", "night"},
      {"am", "am"},
      {"pm", "pm"},
      {"calories", "calorie"},
      {"floors", "floor"},
      {"seats", "seat"},
      {"people", "person"},
      {"players", "player"},
      {"books", "book"},
  };
  auto it = kUnits.find(w);
  return it == kUnits.end() ? std::string_view() : it->second;
}

bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool IsSegmentConjunction(std::string_view w) {
  static const std::unordered_set<std::string_view> kWords = {
      "and",     "but", "while",   "whereas", "although", "though", "so",
      "because", "yet", "however", "whereby", "unless",   "except"};
  return In(kWords, w);
}

bool IsPersonalPronoun(std::string_view w) {
  static const std::unordered_set<std::string_view> kWords = {"he",  "she", "it",  "they",
                                                              "him", "her", "them"};
  return In(kWords, w);
}

bool IsBeForm(std::string_view w) {
  static const std::unordered_set<std::string_view> kWords = {"is", "are",  "was",  "were",
                                                              "be", "been", "being"};
  return In(kWords, w);
}

void ReadQuantity(std::string_view text, const text::Token& token, const text::Token* next,
                  std::string& value, std::string& unit) {
  value.clear();
  unit.clear();
  const std::string& w = token.text;
  if (token.number) {
    value = w;
  } else if (auto it = NumberWords().find(w); it != NumberWords().end() && it->second > 0) {
    value = std::to_string(it->second);
  } else if ((w == "once" || w == "twice") && next != nullptr &&
             (next->text == "a" || next->text == "per" || next->text == "every" ||
              next->text == "daily" || next->text == "weekly")) {
    // A frequency ("twice a day"), not a conjunction ("once downloaded").
    value = w == "once" ? "1" : "2";
    unit = "times";
    return;
  } else if (!w.empty() && IsAsciiDigit(w[0])) {
    // Digits glued to a unit: "10am", "8kg", "24h".
    size_t digits = 0;
    while (digits < w.size() && IsAsciiDigit(w[digits])) ++digits;
    std::string_view rest = std::string_view(w).substr(digits);
    if (std::string_view u = UnitWord(rest); !u.empty() || rest == "h") {
      value = w.substr(0, digits);
      unit = rest == "h" ? "hour" : std::string(u);
      return;
    }
    return;
  } else {
    return;
  }
  // A currency sign just before the number, a percent sign just after, or a unit word next.
  if (token.offset > 0) {
    std::string_view before = text.substr(0, token.offset);
    if (before.back() == '$') unit = "$";
    if (before.size() >= 2 && before.substr(before.size() - 2) == "\xC2\xA3") unit = "£";
    if (before.size() >= 3 && before.substr(before.size() - 3) == "\xE2\x82\xAC") unit = "€";
  }
  size_t end = token.offset;
  while (end < text.size() && (IsAsciiDigit(text[end]) || text[end] == '.' || text[end] == ',' ||
                               (text[end] >= 'a' && text[end] <= 'z'))) {
    ++end;
  }
  if (unit.empty() && end < text.size() && text[end] == '%') unit = "%";
  if (unit.empty() && next != nullptr) unit = std::string(UnitWord(next->text));
}

std::optional<Polarity> PolarityOf(std::string_view folded, std::string_view stem) {
  static const PolarityTable kTable;
  for (std::string_view w : {folded, stem}) {
    auto it = kTable.by_word.find(std::string(w));
    if (it != kTable.by_word.end()) return it->second;
  }
  return std::nullopt;
}

bool IsUniversalWord(std::string_view w) {
  static const std::unordered_set<std::string_view> kWords = {
      "always",   "anyone",    "anybody",      "anytime",         "anywhere",
      "everyone", "everybody", "everywhere",   "whenever",        "wherever",
      "forever",  "unlimited", "unrestricted", "unconditionally", "every",
      "all",      "any",       "clock",        "whatever",        "regardless"};
  return In(kWords, w);
}

}  // namespace tala::judges::offline
