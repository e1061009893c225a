#include "io/readers/list_text.h"

#include <simdjson.h>

#include <cctype>

#include "io/writers/json_text.h"

namespace tala::io {

std::optional<std::string> PythonStringList(std::string_view text) {
  size_t i = 0;
  auto space = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  };
  space();
  if (i >= text.size() || text[i] != '[') return std::nullopt;
  ++i;
  std::string out = "[";
  space();
  if (i < text.size() && text[i] == ']') {
    ++i;
    space();
    return i == text.size() ? std::optional<std::string>("[]") : std::nullopt;
  }
  while (true) {
    space();
    if (i >= text.size() || (text[i] != '\'' && text[i] != '"')) return std::nullopt;
    const char quote = text[i++];
    std::string value;
    while (true) {
      if (i >= text.size()) return std::nullopt;
      char c = text[i++];
      if (c == quote) break;
      if (c != '\\') {
        value += c;
        continue;
      }
      if (i >= text.size()) return std::nullopt;
      char e = text[i++];
      switch (e) {
        case 'n':
          value += '\n';
          break;
        case 't':
          value += '\t';
          break;
        case 'r':
          value += '\r';
          break;
        case '\\':
        case '\'':
        case '"':
          value += e;
          break;
        case 'x':
        case 'u': {
          size_t digits = e == 'x' ? 2 : 4;
          if (i + digits > text.size()) return std::nullopt;
          unsigned cp = 0;
          for (size_t k = 0; k < digits; ++k) {
            char h = text[i++];
            if (!std::isxdigit(static_cast<unsigned char>(h))) return std::nullopt;
            cp = cp * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(h))
                                                     ? h - '0'
                                                     : (std::tolower(h) - 'a' + 10));
          }
          if (cp < 0x80) {
            value += static_cast<char>(cp);
          } else if (cp < 0x800) {
            value += static_cast<char>(0xc0 | (cp >> 6));
            value += static_cast<char>(0x80 | (cp & 0x3f));
          } else {
            value += static_cast<char>(0xe0 | (cp >> 12));
            value += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            value += static_cast<char>(0x80 | (cp & 0x3f));
          }
          break;
        }
        default:
          value += '\\';
          value += e;
      }
    }
    if (out.size() > 1) out += ',';
    AppendJsonString(out, value);
    space();
    if (i < text.size() && text[i] == ',') {
      ++i;
      continue;
    }
    if (i < text.size() && text[i] == ']') {
      ++i;
      space();
      if (i != text.size()) return std::nullopt;
      return out + "]";
    }
    return std::nullopt;
  }
}

std::optional<std::string> ListWrittenAsText(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '[') return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::array items;
  if (!parser.parse(text.data(), text.size()).get_array().get(items)) {
    for (simdjson::dom::element item : items) {
      if (!item.is_string()) return std::nullopt;
    }
    return std::string(simdjson::minify(items));
  }
  return PythonStringList(text);
}

}  // namespace tala::io
