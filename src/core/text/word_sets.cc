#include "core/text/word_sets.h"

namespace tala::text {

size_t CommonCount(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t common = 0, i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) {
      ++common;
      ++i;
      ++j;
    } else if (a[i] < b[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return common;
}

double Jaccard(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.empty() && b.empty()) return 1;
  const size_t common = CommonCount(a, b);
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

}  // namespace tala::text
