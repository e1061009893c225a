#include "judges/offline/sentence_encoder.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "judges/offline/weight_matrix.h"

namespace tala::judges::offline {

namespace {

constexpr int kHeads = 4;
constexpr float kLayerNormEpsilon = 1e-6f;

// The file's bytes, read at once into a string of its size (the shards are 27 MB: a stream
// copied through a stringstream took a third of the encoder's load).
std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  if (size <= 0) return {};
  std::string bytes(static_cast<size_t>(size), '\0');
  in.seekg(0);
  in.read(bytes.data(), size);
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bytes;
}

// Appends the file's bytes to `out`, read in place.
void AppendFile(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return;
  const std::streamoff size = in.tellg();
  if (size <= 0) return;
  const size_t at = out.size();
  out.resize(at + static_cast<size_t>(size));
  in.seekg(0);
  in.read(out.data() + at, size);
  out.resize(at + static_cast<size_t>(in.gcount()));
}

}  // namespace

// The weights, by what they do. Matrices are row-major [in, out].
struct SentenceEncoder::Model {
  struct Layer {
    size_t in = 0, width = 0;  // the layer's input and attention widths (256/256, 512/512)
    std::vector<float> norm_scale, norm_bias, qkv_bias, out_bias;
    WeightMatrix qkv, out;
    float query_scale = 1;
    std::vector<float> ffn_norm_scale, ffn_norm_bias, ffn1_bias, ffn2_bias;
    WeightMatrix ffn1, ffn2;
    WeightMatrix residual;  // layer 0: the input projected to 512-d
    std::vector<float> residual_bias;
  };
  SentencePieces pieces;
  std::vector<float> embeddings;  // [pieces, 256]
  size_t embedding_rows = 0;
  std::vector<float> timescales;  // [128]
  // The timing signal of each position, [kMaxPieces, 256]: sin(p * timescale) then cos, computed
  // once (in float32 products, as the graph does).
  std::vector<float> timing;
  Layer layers[2];
  WeightMatrix tanh_weights;
  std::vector<float> tanh_bias;
};

std::string SentenceEncoder::DefaultDir() {
  if (const char* dir = std::getenv("TALA_SENTENCE_ENCODER"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  std::string cache;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    cache = xdg;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    cache = std::string(home) + "/.cache";
  } else {
    cache = ".cache";
  }
  return cache + "/tala/use-lite-0.2.0";
}

namespace {

// The models read so far, by folder, with the error of a failed read: each is read once.
struct LoadedModels {
  std::mutex mutex;
  std::map<std::string, Result<std::shared_ptr<const SentenceEncoder::Model>>> by_dir;
};
LoadedModels& Loaded() {
  static LoadedModels loaded;
  return loaded;
}

// kNotFound, saying how to fetch it, when `dir` lacks the model's files.
Status FindModel(const std::string& dir) {
  if (!std::filesystem::exists(dir + "/model.json") ||
      !std::filesystem::exists(dir + "/vocab.json")) {
    return NotFound("no sentence encoder in " + dir +
                    " (model.json and vocab.json); `make deps` fetches it, or run "
                    "tools/fetch_sentence_encoder.sh, or set TALA_SENTENCE_ENCODER");
  }
  return OkStatus();
}

}  // namespace

Result<std::unique_ptr<SentenceEncoder>> SentenceEncoder::Shared() {
  LoadedModels& loaded = Loaded();
  const std::string dir = DefaultDir();
  std::lock_guard<std::mutex> lock(loaded.mutex);
  auto it = loaded.by_dir.find(dir);
  if (it == loaded.by_dir.end()) {
    Result<std::unique_ptr<SentenceEncoder>> first = Load(dir);
    Result<std::shared_ptr<const Model>> model =
        first ? Result<std::shared_ptr<const Model>>((*first)->model_)
              : Result<std::shared_ptr<const Model>>(first.error());
    it = loaded.by_dir.emplace(dir, std::move(model)).first;
  }
  if (!it->second) return it->second.error();
  return std::unique_ptr<SentenceEncoder>(new SentenceEncoder(*it->second));
}

Status SentenceEncoder::Available() {
  LoadedModels& loaded = Loaded();
  const std::string dir = DefaultDir();
  {
    std::lock_guard<std::mutex> lock(loaded.mutex);
    auto it = loaded.by_dir.find(dir);
    if (it != loaded.by_dir.end()) return it->second ? OkStatus() : it->second.error();
  }
  return FindModel(dir);
}

Result<std::unique_ptr<SentenceEncoder>> SentenceEncoder::Load(const std::string& dir) {
  const std::string graph_path = dir + "/model.json";
  TALA_RETURN_IF_ERROR(FindModel(dir));
  auto model = std::make_shared<Model>();
  TALA_ASSIGN_OR_RETURN(
      model->pieces, SentencePieces::FromJson(ReadAll(dir + "/vocab.json"), dir + "/vocab.json"));
  nlohmann::json graph = nlohmann::json::parse(ReadAll(graph_path), nullptr, false);
  auto bad = [&](const std::string& what) {
    return DataError({graph_path, 0, 0, "weightsManifest"},
                     what + ": not the Universal Sentence Encoder Lite this build runs");
  };
  if (!graph.is_object() || !graph.contains("weightsManifest")) return bad("no weights manifest");
  // Every weight by its graph name, read from the shards in manifest order.
  std::map<std::string, std::pair<std::vector<size_t>, std::vector<float>>> weights;
  for (const nlohmann::json& group : graph["weightsManifest"]) {
    std::string bytes;
    std::vector<std::string> shards;
    size_t total = 0;
    for (const nlohmann::json& path : group.value("paths", nlohmann::json::array())) {
      shards.push_back(dir + "/" + path.get<std::string>());
      std::error_code ec;
      const auto size = std::filesystem::file_size(shards.back(), ec);
      if (ec) return NotFound("sentence encoder: " + shards.back() + " is missing");
      total += size;
    }
    bytes.reserve(total);
    for (const std::string& shard : shards) AppendFile(shard, bytes);
    size_t offset = 0;
    for (const nlohmann::json& w : group.value("weights", nlohmann::json::array())) {
      std::vector<size_t> shape = w.value("shape", std::vector<size_t>{});
      size_t count = 1;
      for (size_t d : shape) count *= d;
      if (offset + 4 * count > bytes.size()) return bad("the shards are shorter than the manifest");
      std::vector<float> values;
      if (w.value("dtype", "") == "float32") {
        values.resize(count);
        std::memcpy(values.data(), bytes.data() + offset, 4 * count);
      }
      weights[w.value("name", "")] = {std::move(shape), std::move(values)};
      offset += 4 * count;
    }
  }
  std::string missing;
  // The one weight whose name ends with `suffix`, of `shape`.
  auto take = [&](const std::string& suffix, std::vector<size_t> shape) {
    for (auto& [name, w] : weights) {
      if (name.size() >= suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
          w.first == shape) {
        return std::move(w.second);
      }
    }
    if (missing.empty()) missing = suffix;
    return std::vector<float>{};
  };
  Model& m = *model;
  m.embeddings = take("module/Embeddings_en", {8002, 256});
  m.embedding_rows = 8002;
  m.timescales = take("AddTimingSignal/TimingSignal/ExpandDims_1", {1, 128});
  for (size_t l = 0; l < 2; ++l) {
    Model::Layer& L = m.layers[l];
    L.in = l == 0 ? 256 : 512;
    L.width = L.in;
    const std::string at = "Encode/Layer_" + std::to_string(l) + "/TransformerLayer/";
    const std::string stack = "TransformerStack/Layer_" + std::to_string(l) + "/TransformerLayer/";
    const std::string concat = "/ConcatPartitions/concat";
    L.norm_scale = take(at + "layer_prepostprocess/layer_norm/layer_norm_scale" + concat, {L.in});
    L.norm_bias = take(at + "layer_prepostprocess/layer_norm/layer_norm_bias" + concat, {L.in});
    L.qkv = WeightMatrix(take(at + "MultiheadAttention/qkv_transform_single/kernel/part_0",
                              {1, 1, L.in, 3 * L.width}),
                         L.in, 3 * L.width);
    L.qkv_bias = take(at + "MultiheadAttention/qkv_transform_single/bias" + concat, {3 * L.width});
    L.out = WeightMatrix(
        take(at + "MultiheadAttention/output_transform_single/kernel/part_0", {1, 1, L.width, 512}),
        L.width, 512);
    L.out_bias = take(at + "MultiheadAttention/output_transform_single/bias" + concat, {512});
    std::vector<float> scale = take(stack + "MultiheadAttention/mul/y", {});
    L.query_scale = scale.empty() ? 0 : scale[0];
    L.ffn_norm_scale =
        take(at + "FFN/layer_prepostprocess/layer_norm/layer_norm_scale" + concat, {512});
    L.ffn_norm_bias =
        take(at + "FFN/layer_prepostprocess/layer_norm/layer_norm_bias" + concat, {512});
    L.ffn1 = WeightMatrix(take(stack + "FFN/conv1/Tensordot/Reshape_1", {512, 1536}), 512, 1536);
    L.ffn1_bias = take(at + "FFN/conv1/bias" + concat, {1536});
    L.ffn2 = WeightMatrix(take(stack + "FFN/conv2/Tensordot/Reshape_1", {1536, 512}), 1536, 512);
    L.ffn2_bias = take(at + "FFN/conv2/bias" + concat, {512});
    if (l == 0) {
      L.residual = WeightMatrix(take(at + "dense/kernel" + concat, {256, 512}), 256, 512);
      L.residual_bias = take(at + "dense/bias" + concat, {512});
    }
  }
  m.tanh_weights = WeightMatrix(take("hidden_layers/tanh_layer_0/weights", {512, 512}), 512, 512);
  m.tanh_bias = take("hidden_layers/tanh_layer_0/bias", {512});
  if (!missing.empty()) return bad("no weight named *" + missing + " of the expected shape");
  if (m.pieces.size() + 2 != m.embedding_rows) return bad("the vocabulary and embeddings differ");
  m.timing.resize(kMaxPieces * 256);
  for (size_t p = 0; p < kMaxPieces; ++p) {
    for (size_t k = 0; k < 128; ++k) {
      const double angle = static_cast<double>(static_cast<float>(p) * m.timescales[k]);
      m.timing[p * 256 + k] = static_cast<float>(std::sin(angle));
      m.timing[p * 256 + 128 + k] = static_cast<float>(std::cos(angle));
    }
  }
  // One BLAS thread: tala runs encoders on its own threads, one per worker.
  static std::once_flag single_thread;
  std::call_once(single_thread, [] { openblas_set_num_threads(1); });
  return std::unique_ptr<SentenceEncoder>(new SentenceEncoder(std::move(model)));
}

const SentencePieces& SentenceEncoder::pieces() const { return model_->pieces; }

bool SentenceEncoder::BatchesExactly() { return WeightMatrix::RowsIndependent(); }

namespace {

void LayerNorm(const float* x, float* y, size_t rows, size_t n, const std::vector<float>& scale,
               const std::vector<float>& bias) {
  LayerNormRows(x, y, rows, n, scale.data(), bias.data(), kLayerNormEpsilon);
}

}  // namespace

std::vector<std::vector<float>> SentenceEncoder::EmbedPieces(
    const std::vector<std::vector<int32_t>>& ids) {
  const Model& m = *model_;
  std::vector<size_t> begin(ids.size() + 1, 0);
  for (size_t t = 0; t < ids.size(); ++t) {
    begin[t + 1] = begin[t] + std::min(ids[t].size(), kMaxPieces);
  }
  const size_t rows = begin.back();
  // Working space: input (256), hidden (512), normed (512), qkv (1536), attention (512),
  // feed-forward (1536), scores (128 x 128).
  const size_t need = rows * (256 + 512 + 512 + 1536 + 512 + 1536) + kMaxPieces * kMaxPieces;
  if (scratch_.size() < need) scratch_.resize(need);
  float* x0 = scratch_.data();
  float* x = x0 + rows * 256;
  float* normed = x + rows * 512;
  float* qkv = normed + rows * 512;
  float* attended = qkv + rows * 1536;
  float* ffn = attended + rows * 512;
  float* scores = ffn + rows * 1536;
  // The pieces' embeddings, doubled (the graph adds them to themselves with the timing signal).
  for (size_t t = 0; t < ids.size(); ++t) {
    for (size_t p = 0; p < begin[t + 1] - begin[t]; ++p) {
      const size_t id =
          std::min<size_t>(static_cast<size_t>(std::max(0, ids[t][p])), m.embedding_rows - 1);
      const float* e = m.embeddings.data() + id * 256;
      const float* timing = m.timing.data() + p * 256;
      float* row = x0 + (begin[t] + p) * 256;
      for (size_t k = 0; k < 256; ++k) row[k] = 2 * e[k] + timing[k];
    }
  }
  for (size_t l = 0; l < 2; ++l) {
    const Model::Layer& L = m.layers[l];
    const float* input = l == 0 ? x0 : x;
    const size_t d = L.width, hd = d / kHeads;
    // The residual: layer 0's input projected to 512-d; layer 1's own input.
    if (l == 0) {
      L.residual.Affine(x0, L.residual_bias.data(), x, rows);
    }
    LayerNorm(input, normed, rows, L.in, L.norm_scale, L.norm_bias);
    L.qkv.Affine(normed, L.qkv_bias.data(), qkv, rows);
    for (size_t t = 0; t < ids.size(); ++t) {
      const size_t n = begin[t + 1] - begin[t];
      if (n == 0) continue;
      const float* base = qkv + begin[t] * 3 * d;
      for (int h = 0; h < kHeads; ++h) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(n),
                    static_cast<int>(n), static_cast<int>(hd), L.query_scale, base + h * hd,
                    static_cast<int>(3 * d), base + d + h * hd, static_cast<int>(3 * d), 0.0f,
                    scores, static_cast<int>(n));
        for (size_t i = 0; i < n; ++i) {
          float* s = scores + i * n;
          const float top = *std::max_element(s, s + n);
          float sum = 0;
          for (size_t j = 0; j < n; ++j) sum += (s[j] = std::exp(s[j] - top));
          for (size_t j = 0; j < n; ++j) s[j] /= sum;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(n),
                    static_cast<int>(hd), static_cast<int>(n), 1.0f, scores, static_cast<int>(n),
                    base + 2 * d + h * hd, static_cast<int>(3 * d), 0.0f,
                    attended + begin[t] * d + h * hd, static_cast<int>(d));
      }
    }
    // x = attention projected + residual (x holds the residual already), then x += FFN(LN(x)).
    for (size_t r = 0; r < rows; ++r) AddRow(L.out_bias.data(), x + r * 512, 512);
    L.out.MultiplyAdd(attended, x, rows);
    LayerNorm(x, normed, rows, 512, L.ffn_norm_scale, L.ffn_norm_bias);
    L.ffn1.Affine(normed, L.ffn1_bias.data(), ffn, rows, WeightMatrix::Then::kRelu);
    if (l == 1) break;  // the last layer's second FFN product comes after the mean, below
    for (size_t r = 0; r < rows; ++r) AddRow(L.ffn2_bias.data(), x + r * 512, 512);
    L.ffn2.MultiplyAdd(ffn, x, rows);
  }
  // Mean over each text's pieces, then tanh(W x + b), L2-normalised. The mean is linear, so the
  // last layer's FFN output is pooled before its product: mean(x + W h + b) = mean(x) + W mean(h)
  // + b, one product per text instead of one per piece (a sixth of the work on short texts).
  const Model::Layer& last = m.layers[1];
  std::vector<float> pooled(ids.size() * 512, 0.0f), pooled_ffn(ids.size() * 1536, 0.0f),
      hidden(ids.size() * 512);
  for (size_t t = 0; t < ids.size(); ++t) {
    float* p = pooled.data() + t * 512;
    float* h = pooled_ffn.data() + t * 1536;
    for (size_t r = begin[t]; r < begin[t + 1]; ++r) {
      AddRow(x + r * 512, p, 512);
      AddRow(ffn + r * 1536, h, 1536);
    }
    if (begin[t + 1] == begin[t]) continue;  // no pieces: the mean stays 0, as it was
    const float count = static_cast<float>(begin[t + 1] - begin[t]);
    for (size_t i = 0; i < 512; ++i) p[i] = p[i] / count + last.ffn2_bias[i];
    for (size_t i = 0; i < 1536; ++i) h[i] /= count;
  }
  last.ffn2.MultiplyAdd(pooled_ffn.data(), pooled.data(), ids.size());
  m.tanh_weights.Affine(pooled.data(), m.tanh_bias.data(), hidden.data(), ids.size());
  std::vector<std::vector<float>> out(ids.size(), std::vector<float>(kDimensions));
  for (size_t t = 0; t < ids.size(); ++t) {
    float squares = 0;
    for (size_t i = 0; i < 512; ++i) {
      const float v = std::tanh(hidden[t * 512 + i]);
      out[t][i] = v;
      squares += v * v;
    }
    const float inv = 1.0f / std::sqrt(std::max(squares, 1e-12f));
    for (float& v : out[t]) v *= inv;
  }
  return out;
}

Result<std::vector<std::vector<double>>> SentenceEncoder::Embed(
    std::span<const std::string> texts) {
  // Batches of about 1,024 pieces: products large enough for BLAS to run near its peak, and a
  // working space of about 20 MB, however long the texts.
  constexpr size_t kBatchPieces = 1024;
  std::vector<std::vector<double>> out;
  out.reserve(texts.size());
  std::vector<std::vector<int32_t>> ids;
  size_t pieces = 0;
  auto flush = [&] {
    for (const std::vector<float>& v : EmbedPieces(ids)) out.emplace_back(v.begin(), v.end());
    ids.clear();
    pieces = 0;
  };
  for (const std::string& text : texts) {
    ids.push_back(Tokenize(text));
    pieces += std::min(ids.back().size(), kMaxPieces);
    if (pieces >= kBatchPieces) flush();
  }
  if (!ids.empty()) flush();
  return out;
}

}  // namespace tala::judges::offline
