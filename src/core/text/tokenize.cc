#include "core/text/tokenize.h"

#include "core/text/normalize.h"

namespace tala::text {

namespace {
bool IsAsciiAlnum(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }
// Non-ASCII bytes are treated as word characters except common punctuation (dashes, quotes).
bool IsWordByte(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return IsAsciiAlnum(c);
  // U+2013/2014 dashes and U+2018/2019/201C/201D quotes start with E2 80.
  if (c == 0xE2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80) return false;
  if (c == 0xC2) return false;  // U+0080..U+00BF: NBSP, «, », ·, °, ...
  return true;
}
size_t Utf8Len(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 6) return 2;
  if ((c >> 4) == 14) return 3;
  if ((c >> 3) == 30) return 4;
  return 1;
}
}  // namespace

std::vector<Token> Tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    if (!IsWordByte(s, i)) {
      ++i;
      continue;
    }
    size_t start = i;
    bool all_digits = true;
    while (i < s.size()) {
      if (IsWordByte(s, i)) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        all_digits = all_digits && IsDigit(c);
        i += Utf8Len(c);
        continue;
      }
      // 6.213, 1,000: a separator between digits stays inside the number.
      if ((s[i] == '.' || s[i] == ',') && all_digits && i + 1 < s.size() &&
          IsDigit(static_cast<unsigned char>(s[i + 1])) && i > start) {
        ++i;
        continue;
      }
      break;
    }
    std::string_view word = s.substr(start, i - start);
    // Possessive 's / ’s: skip it so "Arthur's" matches "Arthur".
    if (i + 1 < s.size() && s[i] == '\'' && (s[i + 1] == 's' || s[i + 1] == 'S') &&
        (i + 2 >= s.size() || !IsWordByte(s, i + 2))) {
      i += 2;
    }
    Token t;
    t.text = FoldForMatching(word);
    for (char& c : t.text) {
      if (c == ',') c = '\0';
    }
    std::erase(t.text, '\0');  // 1,000 -> 1000
    t.offset = start;
    t.capitalised = StartsUpper(word);
    t.number = IsDigit(static_cast<unsigned char>(word[0]));
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace tala::text
