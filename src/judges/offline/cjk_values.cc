#include "judges/offline/cjk_values.h"

#include <utf8proc.h>

#include <unordered_set>

#include "core/text/normalize.h"

namespace tala::judges::offline {

namespace {

bool HanOrKatakana(utf8proc_int32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) ||  // CJK unified ideographs
         (cp >= 0x3400 && cp <= 0x4DBF) ||  // extension A
         (cp >= 0xF900 && cp <= 0xFAFF) ||  // compatibility ideographs
         (cp >= 0x30A1 && cp <= 0x30FA);    // Katakana letters (not the long-vowel mark)
}

// Calls f(code point, byte offset, byte length) for each code point; invalid bytes are skipped.
template <typename F>
void ForEachCodePoint(std::string_view text, F f) {
  size_t i = 0;
  while (i < text.size()) {
    utf8proc_int32_t cp = -1;
    const utf8proc_ssize_t n =
        utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + i),
                         static_cast<utf8proc_ssize_t>(text.size() - i), &cp);
    const size_t len = n > 0 ? static_cast<size_t>(n) : 1;
    if (n > 0) f(cp, i, len);
    i += len;
  }
}

}  // namespace

std::string AbsentCjkRun(std::string_view claim, std::string_view context) {
  std::unordered_set<utf8proc_int32_t> held;
  ForEachCodePoint(context, [&](utf8proc_int32_t cp, size_t, size_t) {
    if (HanOrKatakana(cp)) held.insert(cp);
  });
  size_t run_start = 0, run_end = 0, run_chars = 0;
  std::string found;
  ForEachCodePoint(claim, [&](utf8proc_int32_t cp, size_t at, size_t len) {
    if (!found.empty()) return;
    if (HanOrKatakana(cp) && held.count(cp) == 0) {
      if (run_chars == 0) run_start = at;
      run_end = at + len;
      ++run_chars;
      return;
    }
    if (run_chars >= 2) found = std::string(claim.substr(run_start, run_end - run_start));
    run_chars = 0;
  });
  if (found.empty() && run_chars >= 2)
    found = std::string(claim.substr(run_start, run_end - run_start));
  if (!found.empty()) return found;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  const std::string folded_context = text::AsciiLower(context);
  for (size_t i = 0; i < claim.size();) {
    if (!letter(claim[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < claim.size() && letter(claim[end])) ++end;
    if (end - i >= 2 &&
        folded_context.find(text::AsciiLower(claim.substr(i, end - i))) == std::string::npos) {
      return std::string(claim.substr(i, end - i));
    }
    i = end;
  }
  return "";
}

}  // namespace tala::judges::offline
