#pragma once
// An anytime-valid confidence sequence for the mean of bounded values: an interval after every
// value such that, with probability at least 1 - alpha, every one of them holds the true mean at
// once, however often it is looked at and whenever one stops. That is what lets `--sequential`
// stop judging rows as soon as a gate is decided without raising its error rate.
//
// Betting construction (Waudby-Smith & Ramdas, "Estimating means of bounded random variables by
// betting", 2023): for each candidate mean m on a grid, a bettor's wealth grows when the values
// disagree with m; m leaves the sequence once the hedged wealth (half betting up, half down)
// reaches 1/alpha (Ville's inequality). Bets are predictable plug-ins sized by the running
// variance, so low-variance data (paired differences that are mostly 0) decides fast. Values are
// assumed in random order (the rows are shuffled with a seed). Pure; not thread-safe.

#include <cstdint>
#include <vector>

namespace tala::analysis {

class ConfidenceSequence {
 public:
  // Values lie in [low, high]; `grid` candidate means (resolution (high - low) / grid).
  ConfidenceSequence(double alpha, double low = 0, double high = 1, int grid = 1000);

  void Add(double value);  // clamped into [low, high]
  int64_t count() const { return n_; }
  double mean() const;
  // The current interval: every candidate mean not yet rejected, [low, high] before any value.
  double lower() const;
  double upper() const;

 private:
  double alpha_, low_, high_;
  std::vector<double> grid_;  // candidate means, in [0, 1]
  std::vector<double> log_up_, log_down_;
  std::vector<char> rejected_;  // once rejected, stays rejected (intersection)
  int64_t n_ = 0;
  double sum_ = 0;
  double mean_hat_ = 0.5, var_hat_ = 0.25, sq_sum_ = 0.25;  // the plug-in's running estimates
};

}  // namespace tala::analysis
