#include "judges/offline/weight_matrix.h"

#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace tala::judges::offline {

namespace {

constexpr size_t kPanel = 64;    // columns per panel: four 16-float vectors
constexpr size_t kTileRows = 6;  // rows per tile: 6 x 4 accumulators, 28 of the 32 registers

bool UseOwnKernel() {
  static const bool own = [] {
    const char* blas = std::getenv("TALA_ENCODER_BLAS");
    if (blas != nullptr && *blas != '\0' && std::strcmp(blas, "0") != 0) return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
  }();
  return own;
}

// R rows of C (R <= kTileRows) times one panel: each element starts as C's value (or, given a
// bias row, as the bias: C is then only written), then one fused multiply-add per k in order,
// held in a register throughout; with Relu, negatives stored as 0.
template <int R, bool Relu>
__attribute__((target("avx512f"))) void Tile(const float* a, size_t k, const float* panel, float* c,
                                             size_t ldc, const float* bias,
                                             const __mmask16 (&mask)[4]) {
  __m512 acc[R][4];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
      acc[r][q] = _mm512_maskz_loadu_ps(mask[q], bias ? bias + 16 * q : c + r * ldc + 16 * q);
    }
  }
  for (size_t i = 0; i < k; ++i) {
    const float* w = panel + i * kPanel;
    const __m512 w0 = _mm512_loadu_ps(w), w1 = _mm512_loadu_ps(w + 16),
                 w2 = _mm512_loadu_ps(w + 32), w3 = _mm512_loadu_ps(w + 48);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m512 x = _mm512_set1_ps(a[r * k + i]);
      acc[r][0] = _mm512_fmadd_ps(x, w0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(x, w1, acc[r][1]);
      acc[r][2] = _mm512_fmadd_ps(x, w2, acc[r][2]);
      acc[r][3] = _mm512_fmadd_ps(x, w3, acc[r][3]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
      const __m512 v =
          Relu ? _mm512_maskz_max_ps(0xFFFF, acc[r][q], _mm512_set1_ps(0.0f)) : acc[r][q];
      _mm512_mask_storeu_ps(c + r * ldc + 16 * q, mask[q], v);
    }
  }
}

using TileFn = void (*)(const float*, size_t, const float*, float*, size_t, const float*,
                        const __mmask16 (&)[4]);
// kTiles[relu][R] computes a tile of R rows.
constexpr TileFn kTiles[2][kTileRows + 1] = {
    {nullptr, Tile<1, false>, Tile<2, false>, Tile<3, false>, Tile<4, false>, Tile<5, false>,
     Tile<6, false>},
    {nullptr, Tile<1, true>, Tile<2, true>, Tile<3, true>, Tile<4, true>, Tile<5, true>,
     Tile<6, true>}};

__attribute__((target("avx512f"))) void OwnMultiplyAdd(const float* a, const float* panels,
                                                       size_t k, size_t n, float* c, size_t rows,
                                                       const float* bias, bool relu) {
  for (size_t p = 0; p * kPanel < n; ++p) {
    const size_t columns = std::min(kPanel, n - p * kPanel);
    __mmask16 mask[4];
    for (size_t q = 0; q < 4; ++q) {
      const size_t have = columns > 16 * q ? std::min<size_t>(16, columns - 16 * q) : 0;
      mask[q] = static_cast<__mmask16>((1u << have) - 1u);
    }
    const float* panel = panels + p * k * kPanel;
    float* cp = c + p * kPanel;
    const float* bp = bias ? bias + p * kPanel : nullptr;
    // Full tiles of six rows, then one tile of the rows left over.
    for (size_t r = 0; r < rows; r += kTileRows) {
      const size_t take = std::min(kTileRows, rows - r);
      kTiles[relu ? 1 : 0][take](a + r * k, k, panel, cp + r * n, n, bp, mask);
    }
  }
}

// The sum of a vector's 16 lanes (GCC 12's _mm512_reduce_add_ps warns under -Werror).
__attribute__((target("avx512f"))) float SumLanes(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float sum = 0;
  for (float lane : lanes) sum += lane;
  return sum;
}

__attribute__((target("avx512f"))) void OwnLayerNorm(const float* x, float* y, size_t rows,
                                                     size_t n, const float* scale,
                                                     const float* bias, float epsilon) {
  for (size_t r = 0; r < rows; ++r) {
    const float* in = x + r * n;
    float* out = y + r * n;
    __m512 sum = _mm512_set1_ps(0.0f);
    for (size_t i = 0; i < n; i += 16) sum = _mm512_add_ps(sum, _mm512_loadu_ps(in + i));
    const float mean = SumLanes(sum) / static_cast<float>(n);
    const __m512 centre = _mm512_set1_ps(mean);
    __m512 squares = _mm512_set1_ps(0.0f);
    for (size_t i = 0; i < n; i += 16) {
      const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(in + i), centre);
      squares = _mm512_fmadd_ps(d, d, squares);
    }
    const float var = SumLanes(squares) / static_cast<float>(n);
    const __m512 inv = _mm512_set1_ps(1.0f / std::sqrt(var + epsilon));
    for (size_t i = 0; i < n; i += 16) {
      const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(in + i), centre);
      const __m512 v = _mm512_mul_ps(_mm512_mul_ps(_mm512_loadu_ps(scale + i), inv), d);
      _mm512_storeu_ps(out + i, _mm512_add_ps(v, _mm512_loadu_ps(bias + i)));
    }
  }
}

__attribute__((target("avx512f"))) void OwnAddRow(const float* row, float* into, size_t n) {
  for (size_t i = 0; i < n; i += 16) {
    _mm512_storeu_ps(into + i, _mm512_add_ps(_mm512_loadu_ps(into + i), _mm512_loadu_ps(row + i)));
  }
}

}  // namespace

void LayerNormRows(const float* x, float* y, size_t rows, size_t n, const float* scale,
                   const float* bias, float epsilon) {
  if (UseOwnKernel() && n % 16 == 0) {
    OwnLayerNorm(x, y, rows, n, scale, bias, epsilon);
    return;
  }
  for (size_t r = 0; r < rows; ++r) {
    const float* in = x + r * n;
    float* out = y + r * n;
    float mean = 0;
    for (size_t i = 0; i < n; ++i) mean += in[i];
    mean /= static_cast<float>(n);
    float var = 0;
    for (size_t i = 0; i < n; ++i) var += (in[i] - mean) * (in[i] - mean);
    var /= static_cast<float>(n);
    const float inv = 1.0f / std::sqrt(var + epsilon);
    for (size_t i = 0; i < n; ++i) out[i] = scale[i] * inv * (in[i] - mean) + bias[i];
  }
}

void AddRow(const float* row, float* into, size_t n) {
  if (UseOwnKernel() && n % 16 == 0) {
    OwnAddRow(row, into, n);
    return;
  }
  for (size_t i = 0; i < n; ++i) into[i] += row[i];
}

bool WeightMatrix::RowsIndependent() { return UseOwnKernel(); }

WeightMatrix::WeightMatrix(std::vector<float> values, size_t k, size_t n) {
  if (k == 0 || n == 0 || values.size() != k * n) return;
  k_ = k;
  n_ = n;
  if (!UseOwnKernel()) {
    values_ = std::move(values);
    return;
  }
  const size_t count = (n + kPanel - 1) / kPanel;
  panels_.assign(count * k * kPanel, 0.0f);
  for (size_t p = 0; p < count; ++p) {
    const size_t columns = std::min(kPanel, n - p * kPanel);
    for (size_t i = 0; i < k; ++i) {
      std::copy_n(values.data() + i * n + p * kPanel, columns,
                  panels_.data() + (p * k + i) * kPanel);
    }
  }
}

void WeightMatrix::MultiplyAdd(const float* a, float* c, size_t rows, Then then) const {
  Product(a, nullptr, c, rows, then);
}

void WeightMatrix::Affine(const float* a, const float* bias, float* c, size_t rows,
                          Then then) const {
  Product(a, bias, c, rows, then);
}

void WeightMatrix::Product(const float* a, const float* bias, float* c, size_t rows,
                           Then then) const {
  if (rows == 0 || empty()) return;
  if (!panels_.empty()) {
    OwnMultiplyAdd(a, panels_.data(), k_, n_, c, rows, bias, then == Then::kRelu);
    return;
  }
  if (bias != nullptr) {
    for (size_t r = 0; r < rows; ++r) std::copy_n(bias, n_, c + r * n_);
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows),
              static_cast<int>(n_), static_cast<int>(k_), 1.0f, a, static_cast<int>(k_),
              values_.data(), static_cast<int>(n_), 1.0f, c, static_cast<int>(n_));
  if (then == Then::kRelu) {
    for (size_t i = 0; i < rows * n_; ++i) c[i] = std::max(c[i], 0.0f);
  }
}

}  // namespace tala::judges::offline
