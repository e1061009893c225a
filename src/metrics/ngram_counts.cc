#include "metrics/ngram_counts.h"

#include <algorithm>

#include "core/hash.h"

namespace tala::metrics {

uint64_t HashToken(std::string_view t) { return Fnv1a64(t); }

void AppendNgramHashes(const std::vector<uint64_t>& unit, size_t n, std::vector<uint64_t>& out) {
  if (n == 0 || unit.size() < n) return;
  const size_t first = out.size();
  out.resize(first + unit.size() - n + 1);
  uint64_t* dst = out.data() + first;
  for (size_t i = 0; i + n <= unit.size(); ++i) {
    uint64_t h = 0x9E3779B97F4A7C15ull * n;
    for (size_t k = 0; k < n; ++k) h = (h ^ unit[i + k]) * 0x100000001B3ull + (h >> 29);
    dst[i] = h;
  }
}

size_t ClippedMatches(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  // Counts of b in an open-addressing table (linear probing, load <= 1/2), then a's n-grams take
  // from it: O(|a| + |b|), no sort. The table is per thread and never cleared: a slot belongs to
  // this call only when it carries this call's epoch, so a call costs its n-grams, not the table.
  if (a.empty() || b.empty()) return 0;
  struct Slot {
    uint64_t key;
    uint32_t count;
    uint32_t epoch;
  };
  thread_local std::vector<Slot> table;
  thread_local uint32_t epoch = 0;
  size_t capacity = 16;
  while (capacity < 2 * b.size()) capacity <<= 1;
  if (table.size() < capacity) table.resize(capacity, Slot{0, 0, 0});
  if (++epoch == 0) {  // wrapped: forget every stamp once in 4 billion calls
    for (Slot& slot : table) slot.epoch = 0;
    epoch = 1;
  }
  const size_t mask = capacity - 1;
  const uint32_t now = epoch;
  auto find = [&](uint64_t key) -> Slot& {  // the slot holding key, or the free slot for it
    size_t i = (key ^ (key >> 29)) & mask;
    while (table[i].epoch == now && table[i].key != key) i = (i + 1) & mask;
    return table[i];
  };
  for (uint64_t key : b) {
    Slot& slot = find(key);
    if (slot.epoch != now) {
      slot = Slot{key, 1, now};
    } else {
      ++slot.count;
    }
  }
  size_t matches = 0;
  for (uint64_t key : a) {
    Slot& slot = find(key);  // lookups never insert: the load stays low
    if (slot.epoch == now && slot.count > 0) {
      --slot.count;
      ++matches;
    }
  }
  return matches;
}

}  // namespace tala::metrics
