#pragma once
// Offline embeddings: deterministic hashed feature vectors, no model. Features are stemmed
// content words, stem bigrams and character trigrams of words, hashed (FNV-1a) into kDimensions
// signed buckets, weighted by sublinear TF times IDF, and L2-normalised. The IDF is estimated
// from the texts of one Embed() call (a sample's question, response, reference and chunks):
// idf = ln(1 + (n + 1) / (df + 0.5)). Not thread-safe (owns a Stemmer).

#include "core/text/stemmer.h"
#include "tala/embedder.h"

namespace tala::judges::offline {

class HashedEmbedder : public Embedder {
 public:
  static constexpr size_t kDimensions = 512;
  std::string name() const override { return "offline-hashed-512"; }
  Result<std::vector<std::vector<double>>> Embed(std::span<const std::string> texts) override;

 private:
  text::Stemmer stemmer_;
};

}  // namespace tala::judges::offline
