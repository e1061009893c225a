#include "core/text/sentences.h"

#include <array>
#include <cctype>

namespace tala::text {

namespace {

constexpr std::array<std::string_view, 46> kAbbreviations = {
    "mr",     "mrs",  "ms",   "dr",  "prof", "sr",   "jr",  "st",  "mt",  "vs",  "etc", "eg",
    "ie",     "no",   "inc",  "ltd", "co",   "corp", "jan", "feb", "mar", "apr", "jun", "jul",
    "aug",    "sep",  "sept", "oct", "nov",  "dec",  "gen", "col", "lt",  "sgt", "rev", "fig",
    "approx", "dept", "est",  "vol", "op",   "ca",   "cf",  "al",  "pp",  "ed"};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The word (letters and inner dots) that ends just before position `dot`.
std::string WordBefore(std::string_view s, size_t dot) {
  size_t b = dot;
  while (b > 0 && (std::isalpha(static_cast<unsigned char>(s[b - 1])) || s[b - 1] == '.')) --b;
  std::string w;
  for (size_t i = b; i < dot; ++i) {
    if (s[i] != '.') w.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(s[i]))));
  }
  return w;
}

bool IsAbbreviation(std::string_view s, size_t dot) {
  std::string w = WordBefore(s, dot);
  if (w.size() == 1) return true;  // an initial: "J. K. Rowling", "U.S."
  for (std::string_view a : kAbbreviations) {
    if (w == a) return true;
  }
  // Dotted acronyms such as "U.S.A." or "Ph.D."
  size_t b = dot;
  while (b > 0 && !IsSpace(s[b - 1])) --b;
  std::string_view token = s.substr(b, dot - b);
  return token.find('.') != std::string_view::npos && token.size() <= 6;
}

// True when a sentence ends at the terminator s[i].
bool EndsSentence(std::string_view s, size_t i) {
  char c = s[i];
  if (c != '.' && c != '!' && c != '?') return false;
  size_t next = i + 1;
  // Closing quotes and brackets belong to the sentence.
  while (next < s.size() && (s[next] == '"' || s[next] == '\'' || s[next] == ')')) ++next;
  if (next >= s.size()) return true;
  if (c == '.') {
    if (i > 0 && IsDigit(s[i - 1]) && IsDigit(s[next])) return false;  // 6.213
    if (!IsSpace(s[next])) {
      // Glued sentences: "century.First" (lower-case word, then Capitalised word).
      return i >= 2 && IsLower(s[i - 1]) && IsLower(s[i - 2]) && IsUpper(s[next]) &&
             next + 1 < s.size() && IsLower(s[next + 1]);
    }
    if (IsAbbreviation(s, i)) return false;
    // A list number at the start ("1. First item") is not a sentence.
    size_t b = i;
    while (b > 0 && IsDigit(s[b - 1])) --b;
    if (b < i && (b == 0 || s[b - 1] == '\n')) return false;
  } else if (!IsSpace(s[next])) {
    return false;
  }
  size_t k = next;
  while (k < s.size() && IsSpace(s[k])) ++k;
  if (k >= s.size()) return true;
  unsigned char n = static_cast<unsigned char>(s[k]);
  return !IsLower(static_cast<char>(n));  // "e.g. the" style continuations stay together
}

void Push(std::vector<std::string>& out, std::string_view piece) {
  size_t b = 0, e = piece.size();
  while (b < e && (IsSpace(piece[b]) || piece[b] == '-' || piece[b] == '*')) ++b;
  while (e > b && IsSpace(piece[e - 1])) --e;
  if (e > b) out.emplace_back(piece.substr(b, e - b));
}

}  // namespace

std::vector<std::string> SplitSentences(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size() &&
        (text[i + 1] == '\n' || text[i + 1] == '-' || text[i + 1] == '*')) {
      Push(out, text.substr(start, i - start));
      start = i + 1;
      continue;
    }
    if (!EndsSentence(text, i)) continue;
    size_t end = i + 1;
    while (end < text.size() && (text[end] == '"' || text[end] == '\'' || text[end] == ')')) ++end;
    Push(out, text.substr(start, end - start));
    start = end;
  }
  Push(out, text.substr(start));
  return out;
}

namespace {
size_t WordCount(std::string_view s) {
  size_t n = 0;
  bool in_word = false;
  for (char c : s) {
    bool w = !IsSpace(c);
    if (w && !in_word) ++n;
    in_word = w;
  }
  return n;
}
}  // namespace

std::vector<std::string> SplitClauses(std::string_view sentence) {
  static constexpr std::array<std::string_view, 5> kJoins = {"; ", ", and ", ", but ", ", while ",
                                                             ", whereas "};
  for (std::string_view join : kJoins) {
    size_t at = sentence.find(join);
    if (at == std::string_view::npos) continue;
    std::string_view left = sentence.substr(0, at);
    std::string_view right = sentence.substr(at + join.size());
    if (WordCount(left) < 3 || WordCount(right) < 3) continue;
    std::vector<std::string> out = SplitClauses(left);
    for (std::string& part : SplitClauses(right)) out.push_back(std::move(part));
    return out;
  }
  return {std::string(sentence)};
}

}  // namespace tala::text
