#pragma once
// Summary statistics of one metric over a run: mean, median, standard deviation, and a 95%
// interval for the mean — Wilson's score interval when every value is 0 or 1, else a seeded
// percentile bootstrap (10,000 resamples by default), so the same run always prints the same
// interval; for very large runs the normal approximation. Pure; thread-safe.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tala::analysis {

struct MetricStatistics {
  double mean = 0;
  double median = 0;
  double stddev = 0;  // sample standard deviation (n - 1)
  double ci_low = 0, ci_high = 0;
  // kNone: one non-binary value, from which no interval can be told; ci_low == ci_high ==
  // mean then, and reports print "n too small" instead of a zero-width interval (F2).
  enum class Method { kWilson, kBootstrap, kNormal, kNone };
  Method method = Method::kBootstrap;
};

struct IntervalOptions {
  int resamples = 10000;
  uint64_t seed = 20231;
  double confidence = 0.95;
  // Above this many draws (rows × resamples) the bootstrap would take seconds per metric, and
  // with that many rows its percentile interval equals the normal one: mean ± z·sd/√n is used.
  double max_bootstrap_draws = 5e7;
};

// "[0.1234, 0.5678]" with `digits` decimals, or "n too small" (Method::kNone).
std::string IntervalText(const MetricStatistics& st, int digits = 4);

// nullopt for an empty list.
std::optional<MetricStatistics> Summarise(std::vector<double> values,
                                          const IntervalOptions& options = {});

// Percentile bootstrap interval of the mean of `values` (REQUIRES: non-empty), seeded.
std::pair<double, double> BootstrapMeanInterval(const std::vector<double>& values, int resamples,
                                                uint64_t seed, double confidence);

// Wilson score interval for `successes` of `n` at the given two-sided confidence.
std::pair<double, double> WilsonInterval(double successes, double n, double confidence);

}  // namespace tala::analysis
