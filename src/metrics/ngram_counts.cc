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
  return out;
}

size_t ClippedMatches(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  // Counts of b in an open-addressing table (linear probing, load <= 1/2), then a's n-grams take
  // from it: O(|a| + |b|), no sort. Key 0 marks an empty slot, so 0 is stored as 1.
  if (a.empty() || b.empty()) return 0;
  size_t capacity = 16;
  while (capacity < 2 * b.size()) capacity <<= 1;
  const size_t mask = capacity - 1;
  thread_local std::vector<std::pair<uint64_t, uint32_t>> table;  // reused: no allocation per call
  table.assign(capacity, {0, 0});
  auto find = [&](uint64_t key) {  // the slot holding key, or the empty slot where it belongs
    key = key == 0 ? 1 : key;
    size_t i = (key ^ (key >> 29)) & mask;
    while (table[i].first != 0 && table[i].first != key) i = (i + 1) & mask;
    return std::make_pair(i, key);
  };
  for (uint64_t key : b) {
    auto [i, k] = find(key);
    table[i].first = k;
    ++table[i].second;
  }
  size_t matches = 0;
  for (uint64_t key : a) {
    auto [i, k] = find(key);
    if (table[i].first == k && table[i].second > 0) {  // lookups never insert: the load stays low
      --table[i].second;
      ++matches;
    }
  }
  return matches;
}

}  // namespace tala::metrics
