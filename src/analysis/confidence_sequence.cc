#include "analysis/confidence_sequence.h"

#include <algorithm>
#include <cmath>

namespace tala::analysis {

ConfidenceSequence::ConfidenceSequence(double alpha, double low, double high, int grid)
    : alpha_(alpha), low_(low), high_(high) {
  grid = std::max(grid, 10);
  for (int i = 0; i <= grid; ++i) grid_.push_back(static_cast<double>(i) / grid);
  log_up_.assign(grid_.size(), 0.0);
  log_down_.assign(grid_.size(), 0.0);
  rejected_.assign(grid_.size(), 0);
}

void ConfidenceSequence::Add(double value) {
  const double x = std::clamp((value - low_) / (high_ - low_), 0.0, 1.0);
  ++n_;
  const double t = static_cast<double>(n_);
  // The bet's size, predictable: from the estimates before this value (WSR's plug-in rule).
  const double lambda = std::sqrt(2 * std::log(2 / alpha_) / (var_hat_ * t * std::log(t + 1)));
  const double threshold = std::log(1 / alpha_);
  for (size_t i = 0; i < grid_.size(); ++i) {
    if (rejected_[i]) continue;
    const double m = grid_[i];
    // Capped so that wealth stays positive whatever the value: 1 + l (x - m) > 0 for x in [0, 1].
    const double up = std::min(lambda, m > 0 ? 0.5 / m : lambda);
    const double down = std::min(lambda, m < 1 ? 0.5 / (1 - m) : lambda);
    log_up_[i] += std::log1p(up * (x - m));
    log_down_[i] += std::log1p(-down * (x - m));
    // Hedged: half the capital bets the mean is above m, half below.
    const double hi = std::max(log_up_[i], log_down_[i]);
    const double hedged =
        hi + std::log(0.5 * std::exp(log_up_[i] - hi) + 0.5 * std::exp(log_down_[i] - hi));
    if (hedged >= threshold) rejected_[i] = 1;
  }
  sum_ += x;
  sq_sum_ += (x - mean_hat_) * (x - mean_hat_);
  mean_hat_ = (0.5 + sum_) / (t + 1);
  var_hat_ = std::max(sq_sum_ / (t + 1), 1e-6);
}

double ConfidenceSequence::mean() const {
  return n_ == 0 ? (low_ + high_) / 2 : low_ + (high_ - low_) * sum_ / static_cast<double>(n_);
}

double ConfidenceSequence::lower() const {
  // The last rejected candidate below: the bound lies between it and the first one standing.
  for (size_t i = 0; i < grid_.size(); ++i) {
    if (!rejected_[i]) return low_ + (high_ - low_) * grid_[i > 0 ? i - 1 : 0];
  }
  return mean();  // every candidate rejected: only at the grid's resolution
}

double ConfidenceSequence::upper() const {
  for (size_t i = grid_.size(); i-- > 0;) {
    if (!rejected_[i]) return low_ + (high_ - low_) * grid_[std::min(i + 1, grid_.size() - 1)];
  }
  return mean();
}

}  // namespace tala::analysis
