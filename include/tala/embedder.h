#pragma once
// Embedder: turns texts into vectors for the similarity metrics (response relevancy, semantic
// similarity). The offline hashed embedder and, later, HTTP embedding models implement it.

#include <span>
#include <string>
#include <vector>

#include "tala/status.h"

namespace tala {

class Embedder {
 public:
  virtual ~Embedder() = default;
  virtual std::string name() const = 0;
  // One L2-normalised vector per text, all of the same size.
  virtual Result<std::vector<std::vector<double>>> Embed(std::span<const std::string> texts) = 0;
};

}  // namespace tala
