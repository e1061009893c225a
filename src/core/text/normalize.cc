#include "core/text/normalize.h"

#include <utf8proc.h>

#include <cstdlib>

namespace tala::text {

std::string FoldForMatching(std::string_view s) {
  bool ascii = true;
  for (unsigned char c : s) ascii = ascii && c < 0x80;
  if (ascii) {
    std::string out(s);
    for (char& c : out) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
  }
  utf8proc_uint8_t* mapped = nullptr;
  auto options =
      static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT |
                                     UTF8PROC_CASEFOLD | UTF8PROC_STRIPMARK | UTF8PROC_IGNORE);
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                                    static_cast<utf8proc_ssize_t>(s.size()), &mapped, options);
  if (n < 0) {  // invalid UTF-8: keep the ASCII bytes
    std::string out;
    for (unsigned char c : s) {
      if (c < 0x80) out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
    }
    return out;
  }
  std::string out(reinterpret_cast<char*>(mapped), static_cast<size_t>(n));
  std::free(mapped);
  return out;
}

std::string Canonical(std::string_view s) {
  bool ascii = true;
  for (unsigned char c : s) ascii = ascii && c < 0x80;
  if (ascii) return std::string(s);
  utf8proc_uint8_t* mapped = nullptr;
  utf8proc_ssize_t n = utf8proc_map(
      reinterpret_cast<const utf8proc_uint8_t*>(s.data()), static_cast<utf8proc_ssize_t>(s.size()),
      &mapped, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (n < 0) return std::string(s);
  std::string out(reinterpret_cast<char*>(mapped), static_cast<size_t>(n));
  std::free(mapped);
  return out;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool StartsUpper(std::string_view s) {
  if (s.empty()) return false;
  unsigned char c = static_cast<unsigned char>(s[0]);
  if (c < 0x80) return c >= 'A' && c <= 'Z';
  utf8proc_int32_t cp;
  if (utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                       static_cast<utf8proc_ssize_t>(s.size()), &cp) < 0) {
    return false;
  }
  return utf8proc_isupper(cp);
}

}  // namespace tala::text
