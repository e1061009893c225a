#include "core/text/tokenize.h"

#include <unicode/ubrk.h>
#include <unicode/utext.h>

#include <memory>

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

// A code point of a script written without spaces between words (Chinese, Japanese, Thai, Lao,
// Khmer, Myanmar), or of the CJK punctuation and full-width forms used with them.
bool Unspaced(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c == 0xF0 && i + 1 < s.size()) {  // U+20000..U+2FFFF: CJK extensions B to F
    const unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
    return c1 >= 0xA0 && c1 <= 0xAF;
  }
  if ((c >> 4) != 0x0E || i + 2 >= s.size()) return false;  // not a 3-byte sequence
  const uint32_t cp = ((c & 0x0F) << 12) | ((static_cast<unsigned char>(s[i + 1]) & 0x3F) << 6) |
                      (static_cast<unsigned char>(s[i + 2]) & 0x3F);
  return (cp >= 0x0E00 && cp <= 0x0EFF) ||  // Thai, Lao
         (cp >= 0x1000 && cp <= 0x109F) ||  // Myanmar
         (cp >= 0x1780 && cp <= 0x17FF) ||  // Khmer
         (cp >= 0x3000 && cp <= 0x30FF) ||  // CJK punctuation, Hiragana, Katakana
         (cp >= 0x3400 && cp <= 0x4DBF) ||  // CJK extension A
         (cp >= 0x4E00 && cp <= 0x9FFF) ||  // CJK unified ideographs
         (cp >= 0xF900 && cp <= 0xFAFF) ||  // CJK compatibility ideographs
         (cp >= 0xFF00 && cp <= 0xFFEF);    // full-width forms
}

// A word of such a script, split into its words by ICU's dictionary-based word breaker:
// [offset, length) pairs of the parts that are words (punctuation and spaces left out).
std::vector<std::pair<size_t, size_t>> IcuWords(std::string_view word) {
  std::vector<std::pair<size_t, size_t>> out;
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<UText, decltype(&utext_close)> text(
      utext_openUTF8(nullptr, word.data(), static_cast<int64_t>(word.size()), &status),
      utext_close);
  std::unique_ptr<UBreakIterator, decltype(&ubrk_close)> words(
      ubrk_open(UBRK_WORD, "", nullptr, 0, &status), ubrk_close);
  if (U_FAILURE(status)) return {{0, word.size()}};
  ubrk_setUText(words.get(), text.get(), &status);
  if (U_FAILURE(status)) return {{0, word.size()}};
  // With UTF-8 text, the breaker's positions are byte offsets.
  int32_t start = ubrk_first(words.get());
  for (int32_t end = ubrk_next(words.get()); end != UBRK_DONE;
       start = end, end = ubrk_next(words.get())) {
    if (ubrk_getRuleStatus(words.get()) == UBRK_WORD_NONE) continue;
    out.emplace_back(static_cast<size_t>(start), static_cast<size_t>(end - start));
  }
  return out;
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
    bool all_digits = true, wide = false;  // wide: a character of three bytes or more
    while (i < s.size()) {
      if (IsWordByte(s, i)) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        all_digits = all_digits && IsDigit(c);
        wide = wide || c >= 0xE0;
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
    bool unspaced = false;
    for (size_t k = 0; wide && k < word.size() && !unspaced; k += Utf8Len(word[k])) {
      unspaced = Unspaced(word, k);
    }
    if (unspaced) {
      // No spaces mark its words: a dictionary finds them.
      for (const auto& [offset, length] : IcuWords(word)) {
        Token t;
        t.text = FoldForMatching(word.substr(offset, length));
        t.offset = start + offset;
        t.number = IsDigit(static_cast<unsigned char>(word[offset]));
        out.push_back(std::move(t));
      }
      continue;
    }
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
