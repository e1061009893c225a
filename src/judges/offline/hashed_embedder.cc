#include "judges/offline/hashed_embedder.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/text/stopwords.h"
#include "core/text/tokenize.h"

namespace tala::judges::offline {

namespace {
uint64_t Fnv1a(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Feature kinds live in the top two bits of the hashed id; their weights below.
constexpr uint64_t kWord = 0, kBigram = 1, kTrigram = 2;
constexpr double kKindWeight[] = {1.0, 0.5, 0.25};
uint64_t Feature(uint64_t kind, uint64_t hash) { return (kind << 62) | (hash >> 2); }

// Sorted (feature, count) pairs of one text.
std::vector<std::pair<uint64_t, double>> Features(const std::string& text, text::Stemmer& stemmer) {
  std::vector<uint64_t> ids;
  uint64_t prev = 0;
  for (const text::Token& t : text::Tokenize(text)) {
    if (text::IsStopWord(t.text)) continue;
    uint64_t stem = Fnv1a(stemmer.Stem(t.text));
    ids.push_back(Feature(kWord, stem));
    if (prev != 0) ids.push_back(Feature(kBigram, prev * 31 + stem));
    std::string padded = "<" + t.text + ">";
    for (size_t i = 0; i + 3 <= padded.size(); ++i) {
      ids.push_back(Feature(kTrigram, Fnv1a(std::string_view(padded).substr(i, 3))));
    }
    prev = stem;
  }
  std::sort(ids.begin(), ids.end());
  std::vector<std::pair<uint64_t, double>> out;
  for (uint64_t id : ids) {
    if (!out.empty() && out.back().first == id) {
      out.back().second += 1;
    } else {
      out.emplace_back(id, 1.0);
    }
  }
  return out;
}
}  // namespace

Result<std::vector<std::vector<double>>> HashedEmbedder::Embed(std::span<const std::string> texts) {
  std::vector<std::vector<std::pair<uint64_t, double>>> features;
  std::unordered_map<uint64_t, int> df;
  for (const std::string& t : texts) {
    features.push_back(Features(t, stemmer_));
    for (const auto& [f, count] : features.back()) ++df[f];
  }
  const double n = static_cast<double>(texts.size());
  std::vector<std::vector<double>> out;
  for (const auto& tf : features) {
    std::vector<double> v(kDimensions, 0.0);
    for (const auto& [f, count] : tf) {
      double idf = std::log(1.0 + (n + 1.0) / (df[f] + 0.5));
      uint64_t h = Fnv1a(std::string_view(reinterpret_cast<const char*>(&f), sizeof f));
      double sign = (h >> 63) ? -1.0 : 1.0;
      v[h % kDimensions] += sign * kKindWeight[f >> 62] * (1.0 + std::log(count)) * idf;
    }
    double norm = 0;
    for (double x : v) norm += x * x;
    norm = std::sqrt(norm);
    if (norm > 0) {
      for (double& x : v) x /= norm;
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace tala::judges::offline
