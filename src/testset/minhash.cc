#include "testset/minhash.h"

#include <algorithm>
#include <limits>

#include "core/hash.h"

namespace tala::testset {

namespace {

// FNV-1a (core/hash.h), then a SplitMix64 finaliser per seed: kHashes independent-enough hash
// functions.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

Signature MinHashOf(const std::vector<std::string>& shingles) {
  Signature sig;
  sig.fill(std::numeric_limits<uint64_t>::max());
  for (const std::string& s : shingles) {
    const uint64_t base = Fnv1a64(s);
    for (int k = 0; k < kHashes; ++k) {
      sig[k] = std::min(sig[k], Mix(base ^ (0x5851f42d4c957f2dULL * static_cast<uint64_t>(k + 1))));
    }
  }
  return sig;
}

std::vector<std::string> WordShingles(const std::vector<std::string>& words, size_t n) {
  std::vector<std::string> out;
  if (words.empty()) return out;
  if (words.size() < n) n = words.size();
  for (size_t i = 0; i + n <= words.size(); ++i) {
    std::string s = words[i];
    for (size_t k = 1; k < n; ++k) s += ' ' + words[i + k];
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<size_t> LshIndex::Add(size_t id, const Signature& signature) {
  std::vector<size_t> found;
  for (size_t band = 0; band < bands_.size(); ++band) {
    uint64_t key = band;
    for (int r = 0; r < kRows; ++r) key = Mix(key ^ signature[band * kRows + r]);
    auto& bucket = bands_[band][key];
    found.insert(found.end(), bucket.begin(), bucket.end());
    bucket.push_back(id);
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

}  // namespace tala::testset
