#include "analysis/ppi.h"

#include <cmath>

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
  const double big_n = static_cast<double>(f_all.size());
  const double n = static_cast<double>(y.size());
  auto [f_mean, f_var] = MeanVariance(f_all);
  std::vector<double> diff(y.size());
  for (size_t i = 0; i < y.size(); ++i) diff[i] = f_labelled[i] - y[i];
  auto [d_mean, d_var] = MeanVariance(diff);
  auto [y_mean, y_var] = MeanVariance(y);
  PpiResult r;
  r.rectifier = d_mean;
  double variance = f_var / big_n + d_var / n;
  r.ppi = Interval(f_mean - d_mean, variance, static_cast<long>(f_all.size()), z);
  r.judge = Interval(f_mean, f_var / big_n, static_cast<long>(f_all.size()), z);
  r.human = Interval(y_mean, y_var / n, static_cast<long>(y.size()), z);
  r.effective_n = variance > 0 ? y_var / variance : 0;
  return r;
}

}  // namespace tala::analysis
