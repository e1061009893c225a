// WeightMatrix (judges/offline/weight_matrix.h): C += A W agrees with the product computed in
// double precision for shapes that fill no panel or tile exactly, and with the AVX-512 kernel
// each row of C is bit for bit what it is alone, wherever it sits in a batch; the ReLU applied as
// C is stored, and the encoder's row operations, agree with their formulas.

#include "judges/offline/weight_matrix.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace tala::judges::offline {
namespace {

std::vector<float> Random(size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = u(rng);
  return v;
}

TEST(WeightMatrixTest, TheProductIsAddedToWhatCHolds) {
  std::mt19937 rng(7);
  for (size_t n : {1u, 15u, 64u, 70u, 200u}) {
    for (size_t rows : {1u, 5u, 6u, 13u}) {
      const size_t k = 37;
      std::vector<float> w = Random(k * n, rng), a = Random(rows * k, rng),
                         c = Random(rows * n, rng);
      std::vector<double> want(rows * n);
      for (size_t r = 0; r < rows; ++r) {
        for (size_t j = 0; j < n; ++j) {
          double sum = c[r * n + j];
          for (size_t i = 0; i < k; ++i) sum += double(a[r * k + i]) * double(w[i * n + j]);
          want[r * n + j] = sum;
        }
      }
      // A guard past C's end: nothing is written beyond its rows of n.
      c.push_back(123.0f);
      WeightMatrix(w, k, n).MultiplyAdd(a.data(), c.data(), rows);
      for (size_t e = 0; e < rows * n; ++e) {
        ASSERT_NEAR(c[e], want[e], 1e-4) << "n " << n << " rows " << rows << " element " << e;
      }
      EXPECT_EQ(c.back(), 123.0f);
    }
  }
}

TEST(WeightMatrixTest, ARowIsTheSameAloneAndInAnyBatch) {
  if (!WeightMatrix::RowsIndependent()) GTEST_SKIP() << "OpenBLAS products (no AVX-512)";
  std::mt19937 rng(11);
  const size_t k = 512, n = 1536;
  const WeightMatrix w(Random(k * n, rng), k, n);
  const std::vector<float> a = Random(20 * k, rng);
  // Each row alone.
  std::vector<std::vector<float>> alone;
  for (size_t r = 0; r < 20; ++r) {
    std::vector<float> c(n, 0.5f);
    w.MultiplyAdd(a.data() + r * k, c.data(), 1);
    alone.push_back(c);
  }
  // Batches of every size from every start: rows land in every position of a tile.
  for (size_t start : {0u, 1u, 5u}) {
    for (size_t count = 1; start + count <= 20; count += 3) {
      std::vector<float> c(count * n, 0.5f);
      w.MultiplyAdd(a.data() + start * k, c.data(), count);
      for (size_t r = 0; r < count; ++r) {
        EXPECT_TRUE(std::equal(alone[start + r].begin(), alone[start + r].end(),
                               c.begin() + static_cast<std::ptrdiff_t>(r * n)))
            << "row " << start + r << " in a batch of " << count;
      }
    }
  }
}

// Calls check(w, a, n, rows) for shapes at the kernel's edges: a panel part-filled (15), exactly
// (64) and several (200); one row, one full tile (6), a full tile and a rest (13); k = 37.
template <typename Check>
void ForEachShape(std::mt19937& rng, Check check) {
  for (size_t n : {15u, 64u, 200u}) {
    for (size_t rows : {1u, 6u, 13u}) {
      const size_t k = 37;
      const WeightMatrix w(Random(k * n, rng), k, n);
      check(w, Random(rows * k, rng), n, rows);
    }
  }
}

// With Then::kRelu each element is the product's, or 0 where that is negative: exactly what the
// plain product and a pass of max(0, c) after it give.
TEST(WeightMatrixTest, TheReluIsAppliedAsCIsStored) {
  std::mt19937 rng(13);
  ForEachShape(rng, [&](const WeightMatrix& w, const std::vector<float>& a, size_t n, size_t rows) {
    const std::vector<float> start = Random(rows * n, rng);
    std::vector<float> plain = start, relu = start;
    w.MultiplyAdd(a.data(), plain.data(), rows);
    relu.push_back(-5.0f);  // a guard past C's end, negative: left as it is
    w.MultiplyAdd(a.data(), relu.data(), rows, WeightMatrix::Then::kRelu);
    size_t zeroed = 0;
    for (size_t e = 0; e < rows * n; ++e) {
      ASSERT_EQ(relu[e], std::max(plain[e], 0.0f)) << "n " << n << " element " << e;
      zeroed += plain[e] < 0 ? 1 : 0;
    }
    EXPECT_GT(zeroed, 0u);
    EXPECT_EQ(relu.back(), -5.0f);
  });
}

// Affine writes C = bias + A W without reading C: bit for bit what filling C with the bias and
// adding the product gives, with and without the ReLU, whatever C held before.
TEST(WeightMatrixTest, AffineIsTheBiasFilledThenTheProductAdded) {
  std::mt19937 rng(17);
  ForEachShape(rng, [&](const WeightMatrix& w, const std::vector<float>& a, size_t n, size_t rows) {
    const std::vector<float> bias = Random(n, rng);
    for (auto then : {WeightMatrix::Then::kKeep, WeightMatrix::Then::kRelu}) {
      std::vector<float> filled(rows * n);
      for (size_t r = 0; r < rows; ++r) std::copy(bias.begin(), bias.end(), &filled[r * n]);
      w.MultiplyAdd(a.data(), filled.data(), rows, then);
      std::vector<float> affine = Random(rows * n, rng);  // stale values, to be ignored
      affine.push_back(9.0f);                             // a guard past C's end
      w.Affine(a.data(), bias.data(), affine.data(), rows, then);
      for (size_t e = 0; e < rows * n; ++e) {
        ASSERT_EQ(affine[e], filled[e]) << "n " << n << " rows " << rows << " element " << e;
      }
      EXPECT_EQ(affine.back(), 9.0f);
    }
  });
}

// Each row normalised to mean 0 and variance 1, then scaled and shifted, as in double precision,
// for widths the vector path takes (multiples of 16) and one it does not.
TEST(WeightMatrixTest, LayerNormRowsMatchesTheFormula) {
  std::mt19937 rng(17);
  for (size_t n : {16u, 256u, 512u, 20u}) {
    const size_t rows = 3;
    const std::vector<float> x = Random(rows * n, rng), scale = Random(n, rng),
                             bias = Random(n, rng);
    std::vector<float> y(rows * n + 1, 42.0f);
    LayerNormRows(x.data(), y.data(), rows, n, scale.data(), bias.data(), 1e-6f);
    for (size_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (size_t i = 0; i < n; ++i) mean += x[r * n + i];
      mean /= n;
      for (size_t i = 0; i < n; ++i) var += (x[r * n + i] - mean) * (x[r * n + i] - mean);
      var /= n;
      for (size_t i = 0; i < n; ++i) {
        const double want = scale[i] * (x[r * n + i] - mean) / std::sqrt(var + 1e-6) + bias[i];
        ASSERT_NEAR(y[r * n + i], want, 1e-5) << "n " << n << " row " << r << " element " << i;
      }
    }
    EXPECT_EQ(y.back(), 42.0f);
  }
}

TEST(WeightMatrixTest, AddRowAddsElementwise) {
  for (size_t n : {16u, 1536u, 7u}) {
    std::vector<float> into(n + 1, 1.0f), row(n);
    for (size_t i = 0; i < n; ++i) row[i] = static_cast<float>(i);
    AddRow(row.data(), into.data(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(into[i], 1.0f + static_cast<float>(i));
    EXPECT_EQ(into.back(), 1.0f);
  }
}

TEST(WeightMatrixTest, AWrongSizeLeavesItEmpty) {
  WeightMatrix w(std::vector<float>(10), 3, 4);
  EXPECT_TRUE(w.empty());
  float c = 1.0f, a = 2.0f;
  w.MultiplyAdd(&a, &c, 1);
  EXPECT_EQ(c, 1.0f);
}

}  // namespace
}  // namespace tala::judges::offline
