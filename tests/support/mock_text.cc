#include "support/mock_text.h"

#include <cctype>

namespace tala::testing {

std::set<std::string> Words(const std::string& text, size_t min_length) {
  std::set<std::string> out;
  std::string w;
  for (char c : text + " ") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      if (w.size() >= min_length || (!w.empty() && std::isdigit(static_cast<unsigned char>(w[0]))))
        out.insert(w);
      w.clear();
    }
  }
  return out;
}

double Coverage(const std::string& claim, const std::string& source, size_t min_length) {
  auto c = Words(claim, min_length), s = Words(source, min_length);
  if (c.empty()) return 0;
  int hit = 0;
  for (const auto& w : c) hit += s.count(w) ? 1 : 0;
  return static_cast<double>(hit) / static_cast<double>(c.size());
}

std::vector<std::string> Sentences(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < text.size(); ++i) {
    cur += text[i];
    bool end = (text[i] == '.' || text[i] == '!' || text[i] == '?') &&
               (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n');
    if (end) {
      size_t start = cur.find_first_not_of(" \n");
      if (start != std::string::npos) out.push_back(cur.substr(start));
      cur.clear();
    }
  }
  size_t start = cur.find_first_not_of(" \n");
  if (start != std::string::npos) out.push_back(cur.substr(start));
  return out;
}

}  // namespace tala::testing
