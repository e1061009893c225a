#pragma once
// N-gram multisets as 64-bit hashes, for the reference-string metrics (BLEU, ROUGE-N, chrF):
// clipped matching is one pass through a small hash table. Pure.

#include <cstdint>
#include <string_view>
#include <vector>

namespace tala::metrics {

// Hashes of every n-gram (in text order) of `tokens` (n >= 1); empty when there are fewer than n
// tokens.
std::vector<uint64_t> NgramHashes(const std::vector<std::string_view>& tokens, size_t n);
// The same from per-token hashes (callers hashing tokens once for every order).
std::vector<uint64_t> NgramHashesFromUnits(const std::vector<uint64_t>& units, size_t n);
// The same, appended to `out` (callers reusing one buffer across rows).
void AppendNgramHashes(const std::vector<uint64_t>& units, size_t n, std::vector<uint64_t>& out);
uint64_t HashToken(std::string_view token);
// Size of the multiset intersection of two hash lists (clipped matches), in any order.
size_t ClippedMatches(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b);
size_t ClippedMatches(const uint64_t* a, size_t a_size, const uint64_t* b, size_t b_size);

}  // namespace tala::metrics
