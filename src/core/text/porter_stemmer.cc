#include "core/text/porter_stemmer.h"

#include <array>
#include <utility>

namespace tala::text {

namespace {

bool IsVowelLetter(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

// Porter's consonant: not a vowel letter, and a y only at the start or after a vowel.
bool IsConsonant(std::string_view w, size_t i) {
  if (IsVowelLetter(w[i])) return false;
  if (w[i] != 'y') return true;
  return i == 0 || !IsConsonant(w, i - 1);
}

// m in [C](VC)^m[V]: how many times a vowel run is followed by a consonant.
int Measure(std::string_view stem) {
  int m = 0;
  for (size_t i = 1; i < stem.size(); ++i) {
    m += IsConsonant(stem, i) && !IsConsonant(stem, i - 1) ? 1 : 0;
  }
  return m;
}

bool ContainsVowel(std::string_view stem) {
  for (size_t i = 0; i < stem.size(); ++i) {
    if (!IsConsonant(stem, i)) return true;
  }
  return false;
}

bool EndsDoubleConsonant(std::string_view w) {
  size_t n = w.size();
  return n >= 2 && w[n - 1] == w[n - 2] && IsConsonant(w, n - 1);
}

// *o: consonant-vowel-consonant, the last not w, x or y; NLTK also counts a two-letter
// vowel-consonant word.
bool EndsCvc(std::string_view w) {
  size_t n = w.size();
  if (n >= 3) {
    char last = w[n - 1];
    return IsConsonant(w, n - 3) && !IsConsonant(w, n - 2) && IsConsonant(w, n - 1) &&
           last != 'w' && last != 'x' && last != 'y';
  }
  return n == 2 && !IsConsonant(w, 0) && IsConsonant(w, 1);
}

bool PositiveMeasure(std::string_view stem) { return Measure(stem) > 0; }
bool MeasureAboveOne(std::string_view stem) { return Measure(stem) > 1; }

struct Rule {
  std::string_view suffix;
  std::string_view replacement;
  bool (*condition)(std::string_view stem);  // nullptr: always
};

// Porter's rule lists: the first rule whose suffix ends the word decides; when its condition on
// the stem fails, the word is left as it is (no later rule is tried).
template <size_t N>
std::string Apply(std::string w, const std::array<Rule, N>& rules) {
  for (const Rule& r : rules) {
    if (!w.ends_with(r.suffix)) continue;
    std::string_view stem(w.data(), w.size() - r.suffix.size());
    if (r.condition && !r.condition(stem)) return w;
    w.resize(stem.size());
    w += r.replacement;
    return w;
  }
  return w;
}

std::string Step1a(std::string w) {
  if (w.size() == 4 && w.ends_with("ies")) return w.substr(0, 1) + "ie";
  static constexpr std::array<Rule, 4> kRules{{
      {"sses", "ss", nullptr},
      {"ies", "i", nullptr},
      {"ss", "ss", nullptr},
      {"s", "", nullptr},
  }};
  return Apply(std::move(w), kRules);
}

std::string Step1b(std::string w) {
  if (w.ends_with("ied")) return w.substr(0, w.size() - 3) + (w.size() == 4 ? "ie" : "i");
  if (w.ends_with("eed")) {
    std::string_view stem(w.data(), w.size() - 3);
    return PositiveMeasure(stem) ? std::string(stem) + "ee" : w;
  }
  std::string stem;
  for (std::string_view suffix : {std::string_view("ed"), std::string_view("ing")}) {
    if (w.ends_with(suffix) &&
        ContainsVowel(std::string_view(w).substr(0, w.size() - suffix.size()))) {
      stem = w.substr(0, w.size() - suffix.size());
      break;
    }
  }
  if (stem.empty()) return w;
  if (stem.ends_with("at") || stem.ends_with("bl") || stem.ends_with("iz")) return stem + "e";
  if (EndsDoubleConsonant(stem)) {
    char last = stem.back();
    if (last != 'l' && last != 's' && last != 'z') stem.pop_back();
    return stem;
  }
  if (Measure(stem) == 1 && EndsCvc(stem)) stem += 'e';
  return stem;
}

std::string Step1c(std::string w) {
  // y -> i after a consonant that is not the first letter.
  if (w.size() > 2 && w.back() == 'y' && IsConsonant(w, w.size() - 2)) w.back() = 'i';
  return w;
}

bool LogiCondition(std::string_view stem) {
  // The l of "logi" is measured with the stem ("geo-logi", "theo-logi").
  return stem.empty() ? false : PositiveMeasure(std::string(stem) + "l");
}

std::string Step2(std::string w) {
  if (w.ends_with("alli") && PositiveMeasure(std::string_view(w).substr(0, w.size() - 4))) {
    w.resize(w.size() - 2);  // alli -> al, then step 2 again
    return Step2(std::move(w));
  }
  static constexpr std::array<Rule, 22> kRules{{
      {"ational", "ate", PositiveMeasure}, {"tional", "tion", PositiveMeasure},
      {"enci", "ence", PositiveMeasure},   {"anci", "ance", PositiveMeasure},
      {"izer", "ize", PositiveMeasure},    {"bli", "ble", PositiveMeasure},
      {"alli", "al", PositiveMeasure},     {"entli", "ent", PositiveMeasure},
      {"eli", "e", PositiveMeasure},       {"ousli", "ous", PositiveMeasure},
      {"ization", "ize", PositiveMeasure}, {"ation", "ate", PositiveMeasure},
      {"ator", "ate", PositiveMeasure},    {"alism", "al", PositiveMeasure},
      {"iveness", "ive", PositiveMeasure}, {"fulness", "ful", PositiveMeasure},
      {"ousness", "ous", PositiveMeasure}, {"aliti", "al", PositiveMeasure},
      {"iviti", "ive", PositiveMeasure},   {"biliti", "ble", PositiveMeasure},
      {"fulli", "ful", PositiveMeasure},   {"logi", "log", LogiCondition},
  }};
  return Apply(std::move(w), kRules);
}

std::string Step3(std::string w) {
  static constexpr std::array<Rule, 7> kRules{{
      {"icate", "ic", PositiveMeasure},
      {"ative", "", PositiveMeasure},
      {"alize", "al", PositiveMeasure},
      {"iciti", "ic", PositiveMeasure},
      {"ical", "ic", PositiveMeasure},
      {"ful", "", PositiveMeasure},
      {"ness", "", PositiveMeasure},
  }};
  return Apply(std::move(w), kRules);
}

bool IonCondition(std::string_view stem) {
  return MeasureAboveOne(stem) && (stem.back() == 's' || stem.back() == 't');
}

std::string Step4(std::string w) {
  static constexpr std::array<Rule, 19> kRules{{
      {"al", "", MeasureAboveOne},   {"ance", "", MeasureAboveOne}, {"ence", "", MeasureAboveOne},
      {"er", "", MeasureAboveOne},   {"ic", "", MeasureAboveOne},   {"able", "", MeasureAboveOne},
      {"ible", "", MeasureAboveOne}, {"ant", "", MeasureAboveOne},  {"ement", "", MeasureAboveOne},
      {"ment", "", MeasureAboveOne}, {"ent", "", MeasureAboveOne},  {"ion", "", IonCondition},
      {"ou", "", MeasureAboveOne},   {"ism", "", MeasureAboveOne},  {"ate", "", MeasureAboveOne},
      {"iti", "", MeasureAboveOne},  {"ous", "", MeasureAboveOne},  {"ive", "", MeasureAboveOne},
      {"ize", "", MeasureAboveOne},
  }};
  return Apply(std::move(w), kRules);
}

std::string Step5a(std::string w) {
  if (w.empty() || w.back() != 'e') return w;
  std::string_view stem(w.data(), w.size() - 1);
  int m = Measure(stem);
  if (m > 1 || (m == 1 && !EndsCvc(stem))) w.pop_back();
  return w;
}

std::string Step5b(std::string w) {
  if (w.ends_with("ll") && MeasureAboveOne(std::string_view(w).substr(0, w.size() - 1))) {
    w.pop_back();
  }
  return w;
}

// NLTK's irregular forms, looked up before any rule.
const char* IrregularStem(std::string_view w) {
  static constexpr std::pair<std::string_view, const char*> kForms[] = {
      {"skies", "sky"},       {"sky", "sky"},          {"dying", "die"},
      {"lying", "lie"},       {"tying", "tie"},        {"news", "news"},
      {"innings", "inning"},  {"inning", "inning"},    {"outings", "outing"},
      {"outing", "outing"},   {"cannings", "canning"}, {"canning", "canning"},
      {"howe", "howe"},       {"proceed", "proceed"},  {"exceed", "exceed"},
      {"succeed", "succeed"},
  };
  for (const auto& [form, stem] : kForms) {
    if (form == w) return stem;
  }
  return nullptr;
}

}  // namespace

std::string PorterStemNltk(std::string_view word) {
  if (const char* irregular = IrregularStem(word)) return irregular;
  if (word.size() <= 2) return std::string(word);
  std::string w(word);
  w = Step1a(std::move(w));
  w = Step1b(std::move(w));
  w = Step1c(std::move(w));
  w = Step2(std::move(w));
  w = Step3(std::move(w));
  w = Step4(std::move(w));
  w = Step5a(std::move(w));
  return Step5b(std::move(w));
}

}  // namespace tala::text
