#pragma once
// WeightMatrix: one of the sentence encoder's weight matrices W [k, n] (row-major, [in, out]) and
// the product C[rows, n] += A[rows, k] W that the encoder spends its time in.
//
// On a CPU with AVX-512 the product is our own kernel over the weights laid out once, at load,
// in panels of 64 columns. It exists for one property BLAS does not promise: every element of C
// is the same chain of fused multiply-adds (C's value, then k = 0, 1, ... in order) whatever the
// number of rows or a row's place among them. A text's vector is then bit for bit the same alone
// or in a batch, so the offline judge embeds a row's texts in one product while a shard still
// scores its rows exactly as the whole run does. Laying the weights out once also spares the
// copy BLAS makes of them on every call, which was half its time on a short text.
// Elsewhere (or with TALA_ENCODER_BLAS=1, for tests) OpenBLAS computes it, and its rounding may
// change with the batch: the judge then embeds each text on its own.

#include <cstddef>
#include <vector>

namespace tala::judges::offline {

class WeightMatrix {
 public:
  WeightMatrix() = default;
  // `values` is [k, n] row-major; a size that is not k * n leaves the matrix empty().
  WeightMatrix(std::vector<float> values, size_t k, size_t n);

  // What is done to each element of C once the product is added: nothing, or max(0, c) (an
  // FFN's ReLU, applied as the kernel stores C rather than in a second pass over it).
  enum class Then { kKeep, kRelu };
  // C[rows, n] += A[rows, k] W; A and C are row-major with rows of k and n floats.
  void MultiplyAdd(const float* a, float* c, size_t rows, Then then = Then::kKeep) const;
  // C[rows, n] = bias + A[rows, k] W, `bias` a row of n floats: C is only written, which spares
  // filling it with the bias first. Each element is computed as MultiplyAdd would from the filled
  // C.
  void Affine(const float* a, const float* bias, float* c, size_t rows,
              Then then = Then::kKeep) const;

  bool empty() const { return k_ == 0 || n_ == 0; }
  size_t k() const { return k_; }
  size_t n() const { return n_; }

  // True when MultiplyAdd computes each row of C as it would alone (the AVX-512 kernel).
  static bool RowsIndependent();

 private:
  void Product(const float* a, const float* bias, float* c, size_t rows, Then then) const;
  size_t k_ = 0, n_ = 0;
  std::vector<float> values_;  // row-major, for BLAS; empty with the own kernel
  // The own kernel's layout: panel p holds columns [64p, 64p + 64) of rows 0..k-1, each row's
  // 64 floats together, zero past n.
  std::vector<float> panels_;
};

// The encoder's other row operations, vectorised the same way where the kernel is; each row is
// computed alone, so a batch changes nothing.
// y[r] = scale * (x[r] - mean) / sqrt(variance + epsilon) + bias, for each of `rows` rows of n.
void LayerNormRows(const float* x, float* y, size_t rows, size_t n, const float* scale,
                   const float* bias, float epsilon);
// into[0, n) += row[0, n).
void AddRow(const float* row, float* into, size_t n);

}  // namespace tala::judges::offline
