#include "analysis/ppi.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace tala::analysis {

namespace {
// Mean and the sample variance (n − 1) of the values.
std::pair<double, double> MeanVariance(const std::vector<double>& v) {
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return {mean, v.size() > 1 ? ss / static_cast<double>(v.size() - 1) : 0.0};
}

MeanInterval Interval(double mean, double variance, long n, double z) {
  double half = z * std::sqrt(variance);
  return {mean, mean - half, mean + half, variance, n};
}
}  // namespace

PpiResult PredictionPoweredMean(const std::vector<double>& f_all,
                                const std::vector<double>& f_labelled, const std::vector<double>& y,
                                double z) {
  // A uniform random subset: every row had the chance n/N, and the weighted estimate is the
  // plain one.
  const std::vector<double> equal(
      y.size(), static_cast<double>(y.size()) / static_cast<double>(f_all.size()));
  return PredictionPoweredMeanWeighted(f_all, f_labelled, y, equal, z);
}

namespace {
double Unsure(double f) {
  return std::max(std::sqrt(std::clamp(f, 0.0, 1.0) * (1 - std::clamp(f, 0.0, 1.0))), 0.05);
}
}  // namespace

std::vector<double> ActivePickChances(const std::vector<double>& f, long n) {
  const size_t big_n = f.size();
  std::vector<double> pi(big_n, 0.0);
  if (big_n == 0 || n <= 0) return pi;
  n = std::min<long>(n, static_cast<long>(big_n));
  std::vector<double> weight(big_n);
  double total = 0;
  for (size_t i = 0; i < big_n; ++i) total += weight[i] = Unsure(f[i]);
  for (size_t i = 0; i < big_n; ++i) {
    weight[i] = 0.5 / static_cast<double>(big_n) + 0.5 * weight[i] / total;
  }
  // Chances over 1 are set to 1 and the rest of n spread over the others in proportion, until
  // none is over 1.
  std::vector<char> sure(big_n, 0);
  for (int round = 0; round < 100; ++round) {
    double left = static_cast<double>(n), mass = 0;
    for (size_t i = 0; i < big_n; ++i) {
      if (sure[i])
        left -= 1;
      else
        mass += weight[i];
    }
    bool capped = false;
    for (size_t i = 0; i < big_n; ++i) {
      if (sure[i]) {
        pi[i] = 1;
        continue;
      }
      pi[i] = mass > 0 ? left * weight[i] / mass : 0;
      if (pi[i] > 1) {
        sure[i] = 1;
        capped = true;
      }
    }
    if (!capped) break;
  }
  return pi;
}

std::vector<size_t> DrawWithChances(const std::vector<double>& chances, uint64_t seed) {
  std::vector<size_t> order(chances.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  const double start = std::uniform_real_distribution<double>(0, 1)(rng);
  std::vector<size_t> drawn;
  double before = 0;
  for (size_t i : order) {
    const double after = before + chances[i];
    // The points start, start + 1, ... that fall in [before, after): at most one, as a chance
    // is at most 1.
    const double next = std::ceil(before - start) + start;
    if (next < after - 1e-12) drawn.push_back(i);
    before = after;
  }
  std::sort(drawn.begin(), drawn.end());
  return drawn;
}

PpiResult PredictionPoweredMeanWeighted(const std::vector<double>& f_all,
                                        const std::vector<double>& f_labelled,
                                        const std::vector<double>& y, const std::vector<double>& pi,
                                        double z) {
  const double big_n = static_cast<double>(f_all.size());
  const double n = static_cast<double>(y.size());
  auto [f_mean, f_var] = MeanVariance(f_all);
  // Each labelled row's term, (f - y) / pi scaled so that their plain mean estimates the mean
  // judge error over all N rows: n (f - y) / (N pi).
  std::vector<double> term(y.size());
  for (size_t i = 0; i < y.size(); ++i) {
    term[i] = n * (f_labelled[i] - y[i]) / (big_n * std::max(pi[i], 1e-9));
  }
  auto [d_mean, d_var] = MeanVariance(term);
  double weights = 0;
  for (size_t i = 0; i < y.size(); ++i) weights += 1 / std::max(pi[i], 1e-9);
  double y_mean = 0;
  for (size_t i = 0; i < y.size(); ++i) y_mean += y[i] / std::max(pi[i], 1e-9) / weights;
  auto [plain_y_mean, y_var] = MeanVariance(y);
  (void)plain_y_mean;
  PpiResult r;
  r.rectifier = d_mean;
  const double variance = f_var / big_n + d_var / n;
  r.ppi = Interval(f_mean - d_mean, variance, static_cast<long>(f_all.size()), z);
  r.judge = Interval(f_mean, f_var / big_n, static_cast<long>(f_all.size()), z);
  r.human = Interval(y_mean, y_var / n, static_cast<long>(y.size()), z);
  r.effective_n = variance > 0 ? y_var / variance : 0;
  return r;
}

std::optional<LabelsNeeded> LabelsForWidth(const std::vector<double>& f, double width, double z) {
  if (f.size() < 2 || width <= 0) return std::nullopt;
  const double big_n = static_cast<double>(f.size());
  auto [f_mean, f_var] = MeanVariance(f);
  (void)f_mean;
  const double room = std::pow(width / (2 * z), 2) - f_var / big_n;
  if (room <= 0) return std::nullopt;
  // A calibrated judge: a label differs from the judge's value by sqrt(f (1 - f)) on average.
  double uniform = 0;
  for (double v : f) uniform += Unsure(v) * Unsure(v);
  uniform /= big_n;
  // Active picks, per label drawn: the mean over rows of spread^2 / (N p), p = the chance of a
  // draw landing on the row (ActivePickChances / n, before any cap).
  double total = 0;
  for (double v : f) total += Unsure(v);
  double active = 0;
  for (double v : f) {
    const double p = 0.5 / big_n + 0.5 * Unsure(v) / total;
    active += Unsure(v) * Unsure(v) / (big_n * big_n * p);
  }
  return LabelsNeeded{std::ceil(uniform / room), std::ceil(active / room)};
}

}  // namespace tala::analysis
