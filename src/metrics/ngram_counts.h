#pragma once
// N-gram multisets as 64-bit hashes, for the reference-string metrics (BLEU, ROUGE-N, chrF):
// clipped matching is one pass through a small hash table. Pure.

#include <cstdint>
#include <string_view>
#include <vector>

namespace tala::metrics {

// Appends to `out` the hashes of every n-gram (in text order) of the per-token hashes `units`
// (n >= 1); nothing when there are fewer than n tokens. Callers hash tokens once for every order
// and reuse `out` across rows.
void AppendNgramHashes(const std::vector<uint64_t>& units, size_t n, std::vector<uint64_t>& out);
uint64_t HashToken(std::string_view token);
// Size of the multiset intersection of two hash lists (clipped matches), in any order.
size_t ClippedMatches(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b);

}  // namespace tala::metrics
