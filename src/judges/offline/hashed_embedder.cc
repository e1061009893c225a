#include "judges/offline/hashed_embedder.h"

#include <cmath>
#include <unordered_map>

#include "core/text/stopwords.h"
#include "core/text/tokenize.h"

namespace tala::judges::offline {

namespace {
uint64_t Fnv1a(std::string_view s, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Feature -> count in one text; the prefix says its kind (w: word, b: bigram, c: trigram).
std::unordered_map<std::string, double> Features(const std::string& text, text::Stemmer& stemmer) {
  std::unordered_map<std::string, double> tf;
  std::string prev;
  for (const text::Token& t : text::Tokenize(text)) {
    if (text::IsStopWord(t.text)) continue;
    std::string stem = stemmer.Stem(t.text);
    tf["w:" + stem] += 1.0;
    if (!prev.empty()) tf["b:" + prev + " " + stem] += 1.0;
    std::string padded = "<" + t.text + ">";
    for (size_t i = 0; i + 3 <= padded.size(); ++i) tf["c:" + padded.substr(i, 3)] += 1.0;
    prev = std::move(stem);
  }
  return tf;
}
}  // namespace

Result<std::vector<std::vector<double>>> HashedEmbedder::Embed(std::span<const std::string> texts) {
  std::vector<std::unordered_map<std::string, double>> features;
  std::unordered_map<std::string, int> df;
  for (const std::string& t : texts) {
    features.push_back(Features(t, stemmer_));
    for (const auto& [f, w] : features.back()) ++df[f];
  }
  const double n = static_cast<double>(texts.size());
  std::vector<std::vector<double>> out;
  for (const auto& tf : features) {
    std::vector<double> v(kDimensions, 0.0);
    for (const auto& [f, w] : tf) {
      double idf = std::log(1.0 + (n + 1.0) / (df[f] + 0.5));
      uint64_t h = Fnv1a(f, 0);
      double sign = (h >> 63) ? -1.0 : 1.0;
      double kind = f[0] == 'w' ? 1.0 : f[0] == 'b' ? 0.5 : 0.25;
      v[h % kDimensions] += sign * kind * (1.0 + std::log(w)) * idf;
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
