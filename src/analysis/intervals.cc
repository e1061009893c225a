#include "analysis/intervals.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <tuple>

namespace tala::analysis {

namespace {
// Two-sided normal quantile for the usual confidence levels (Acklam's rational approximation
// would be more general; these three cover the options we expose).
double NormalQuantile(double confidence) {
  if (std::abs(confidence - 0.90) < 1e-9) return 1.6448536269514722;
  if (std::abs(confidence - 0.99) < 1e-9) return 2.5758293035489004;
  return 1.959963984540054;
}
}  // namespace

std::pair<double, double> WilsonInterval(double k, double n, double confidence) {
  if (n <= 0) return {0, 1};
  double z = NormalQuantile(confidence), p = k / n, z2 = z * z;
  double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  double half = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

std::pair<double, double> BootstrapMeanInterval(const std::vector<double>& values, int resamples,
                                                uint64_t seed, double confidence) {
  const size_t n = values.size();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::vector<double> means;
  means.reserve(resamples);
  for (int r = 0; r < resamples; ++r) {
    double s = 0;
    for (size_t i = 0; i < n; ++i) s += values[pick(rng)];
    means.push_back(s / n);
  }
  std::sort(means.begin(), means.end());
  auto at = [&](double q) {
    size_t idx = static_cast<size_t>(std::floor(q * (means.size() - 1) + 0.5));
    return means[std::min(idx, means.size() - 1)];
  };
  double tail = (1 - confidence) / 2;
  return {at(tail), at(1 - tail)};
}

std::string IntervalText(const MetricStatistics& st, int digits) {
  if (st.method == MetricStatistics::Method::kNone) return "n too small";
  char buf[96];
  std::snprintf(buf, sizeof buf, "[%.*f, %.*f]", digits, st.ci_low, digits, st.ci_high);
  return buf;
}

std::optional<MetricStatistics> Summarise(std::vector<double> values, const IntervalOptions& o) {
  if (values.empty()) return std::nullopt;
  const size_t n = values.size();
  MetricStatistics st;
  double sum = 0;
  bool binary = true;
  for (double v : values) {
    sum += v;
    binary = binary && (v == 0.0 || v == 1.0);
  }
  st.mean = sum / n;
  double sq = 0;
  for (double v : values) sq += (v - st.mean) * (v - st.mean);
  st.stddev = n > 1 ? std::sqrt(sq / (n - 1)) : 0.0;
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  st.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  if (binary) {
    st.method = MetricStatistics::Method::kWilson;
    std::tie(st.ci_low, st.ci_high) = WilsonInterval(sum, static_cast<double>(n), o.confidence);
    return st;
  }
  if (n < 2) {
    st.method = MetricStatistics::Method::kNone;
    st.ci_low = st.ci_high = st.mean;
    return st;
  }
  if (static_cast<double>(n) * o.resamples > o.max_bootstrap_draws) {
    st.method = MetricStatistics::Method::kNormal;
    double half = NormalQuantile(o.confidence) * st.stddev / std::sqrt(static_cast<double>(n));
    st.ci_low = st.mean - half;
    st.ci_high = st.mean + half;
    return st;
  }
  std::tie(st.ci_low, st.ci_high) =
      BootstrapMeanInterval(values, o.resamples, o.seed, o.confidence);
  return st;
}

}  // namespace tala::analysis
