#pragma once
// MinHash signatures and locality-sensitive hashing: near-duplicate texts found without
// comparing every pair. A signature is the minimum of `kHashes` seeded hashes over a text's
// shingles; two texts agree on a position with probability equal to their Jaccard similarity.
// Bands of `kRows` positions are hashed into buckets, and texts that share a bucket are
// candidates, checked exactly by the caller. Pure; deterministic.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tala::testset {

inline constexpr int kHashes = 64;
inline constexpr int kRows = 4;  // 16 bands: a pair at Jaccard 0.8 is a candidate 99.9% of times

using Signature = std::array<uint64_t, kHashes>;

// The signature of a set of shingles (each shingle a string).
Signature MinHashOf(const std::vector<std::string>& shingles);

// Word n-grams of a folded text ("a b c d" with n 3: "a b c", "b c d"); the whole text when
// it has fewer than n words.
std::vector<std::string> WordShingles(const std::vector<std::string>& words, size_t n);

// Candidate pairs (i < j) among the signatures: those that share a band's bucket.
class LshIndex {
 public:
  // Adds signature number `id` and returns the ids added before it that share a bucket with it.
  std::vector<size_t> Add(size_t id, const Signature& signature);

 private:
  std::vector<std::unordered_map<uint64_t, std::vector<size_t>>> bands_ =
      std::vector<std::unordered_map<uint64_t, std::vector<size_t>>>(kHashes / kRows);
};

}  // namespace tala::testset
