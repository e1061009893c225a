#pragma once
// Seeded k-fold cross-validation over rows: a seeded permutation of the rows, and the row at
// position j of it in fold j % count. tala align fits its thresholds and blends on the rows
// outside a fold and judges the rows inside it, fold by fold.

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <random>
#include <vector>

namespace tala::analysis {

class Folds {
 public:
  // `folds` is held to [2, n] (2 for fewer than 2 rows); the permutation draws from `rng`.
  Folds(size_t n, int folds, std::mt19937_64& rng) : order_(n) {
    std::iota(order_.begin(), order_.end(), size_t{0});
    std::shuffle(order_.begin(), order_.end(), rng);
    count_ = std::clamp(folds, 2, std::max(2, static_cast<int>(n)));
  }
  int count() const { return count_; }
  // The rows outside fold k, in the permutation's order: what a fold's fit reads.
  template <typename Row>
  std::vector<Row> Outside(const std::vector<Row>& rows, int k) const {
    std::vector<Row> out;
    for (size_t j = 0; j < order_.size(); ++j) {
      if (static_cast<int>(j % count_) != k) out.push_back(rows[order_[j]]);
    }
    return out;
  }
  // The indices of the rows inside fold k: the ones that fold's fit is judged on.
  std::vector<size_t> Inside(int k) const {
    std::vector<size_t> out;
    for (size_t j = static_cast<size_t>(k); j < order_.size(); j += static_cast<size_t>(count_)) {
      out.push_back(order_[j]);
    }
    return out;
  }

 private:
  std::vector<size_t> order_;
  int count_ = 2;
};

}  // namespace tala::analysis
