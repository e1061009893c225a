#include "metrics/ngram_counts.h"

#include <algorithm>

namespace tala::metrics {

uint64_t HashToken(std::string_view t) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : t) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::vector<uint64_t> NgramHashes(const std::vector<std::string_view>& tokens, size_t n) {
  std::vector<uint64_t> unit;
  unit.reserve(tokens.size());
  for (std::string_view t : tokens) unit.push_back(HashToken(t));
  return NgramHashesFromUnits(unit, n);
}

std::vector<uint64_t> NgramHashesFromUnits(const std::vector<uint64_t>& unit, size_t n) {
  std::vector<uint64_t> out;
  if (n == 0 || unit.size() < n) return out;
  out.reserve(unit.size() - n + 1);
  for (size_t i = 0; i + n <= unit.size(); ++i) {
    uint64_t h = 0x9E3779B97F4A7C15ull * n;
    for (size_t k = 0; k < n; ++k) h = (h ^ unit[i + k]) * 0x100000001B3ull + (h >> 29);
    out.push_back(h);
  }
  std::sort(out.begin(), out.end());
  return out;
}

size_t ClippedMatches(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  size_t i = 0, j = 0, m = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] < b[j]) {
      ++i;
    } else if (b[j] < a[i]) {
      ++j;
    } else {
      ++m;
      ++i;
      ++j;
    }
  }
  return m;
}

}  // namespace tala::metrics
