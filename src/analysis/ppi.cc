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

int ActiveStratum(double f) {
  if (!(f > 0)) return 0;
  if (f >= 1) return kActiveStrata - 1;
  return 1 + std::min(static_cast<int>(f * 5), 4);
}

namespace {
// Half uniform, half how unsure the judge's value is: each row's share of the labels.
std::vector<double> ActiveWeights(const std::vector<double>& f) {
  const double big_n = static_cast<double>(f.size());
  double total = 0;
  for (double v : f) total += Unsure(v);
  std::vector<double> weight(f.size());
  for (size_t i = 0; i < f.size(); ++i) weight[i] = 0.5 / big_n + 0.5 * Unsure(f[i]) / total;
  return weight;
}

// Chances in proportion to the weights, summing to n; chances over 1 are set to 1 and the rest
// of n spread over the others in proportion, until none is over 1.
std::vector<double> CappedChances(const std::vector<double>& weight, long n) {
  const size_t big_n = weight.size();
  std::vector<double> pi(big_n, 0.0);
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
}  // namespace

std::vector<double> ActivePickChances(const std::vector<double>& f, long n) {
  const size_t big_n = f.size();
  if (big_n == 0 || n <= 0) return std::vector<double>(big_n, 0.0);
  n = std::min<long>(n, static_cast<long>(big_n));
  const std::vector<double> weight = ActiveWeights(f);
  std::vector<long> size(kActiveStrata, 0);
  std::vector<double> share(kActiveStrata, 0.0);
  for (size_t i = 0; i < big_n; ++i) {
    ++size[ActiveStratum(f[i])];
    share[ActiveStratum(f[i])] += weight[i];
  }
  // Each stratum's labels: two at least (its variance needs two), the rest by its share, whole
  // numbers by the largest remainders.
  std::vector<long> labels(kActiveStrata, 0);
  long given = 0;
  for (int h = 0; h < kActiveStrata; ++h) given += labels[h] = std::min<long>(size[h], 2);
  if (given > n) return CappedChances(weight, n);
  std::vector<double> want(kActiveStrata);
  for (int h = 0; h < kActiveStrata; ++h) want[h] = static_cast<double>(n) * share[h];
  for (int h = 0; h < kActiveStrata; ++h) {
    const long more =
        std::min<long>(size[h], std::max<long>(labels[h], static_cast<long>(want[h])));
    given += more - labels[h];
    labels[h] = more;
  }
  while (given > n) {  // the floors of two took more than the shares left
    int h = -1;
    for (int k = 0; k < kActiveStrata; ++k) {
      if (labels[k] > std::min<long>(size[k], 2) &&
          (h < 0 || labels[k] - want[k] > labels[h] - want[h])) {
        h = k;
      }
    }
    --labels[h];
    --given;
  }
  while (given < n) {
    int h = -1;
    for (int k = 0; k < kActiveStrata; ++k) {
      if (labels[k] < size[k] && (h < 0 || want[k] - labels[k] > want[h] - labels[h])) h = k;
    }
    ++labels[h];
    ++given;
  }
  std::vector<double> pi(big_n);
  for (size_t i = 0; i < big_n; ++i) {
    const int h = ActiveStratum(f[i]);
    pi[i] = static_cast<double>(labels[h]) / static_cast<double>(size[h]);
  }
  return pi;
}

std::vector<size_t> DrawWithChances(const std::vector<double>& chances, uint64_t seed,
                                    const std::vector<int>* groups) {
  std::vector<size_t> order(chances.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  // Systematic sampling draws each row with its chance in any order; a group kept together
  // whose chances sum to k takes exactly k of the points start, start + 1, ...
  if (groups != nullptr) {
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return (*groups)[a] < (*groups)[b]; });
  }
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

ActivePick DrawActivePick(const std::vector<double>& f, long n, uint64_t seed) {
  ActivePick pick;
  pick.chances = ActivePickChances(f, n);
  std::vector<int> strata;
  strata.reserve(f.size());
  for (double v : f) strata.push_back(ActiveStratum(v));
  pick.rows = DrawWithChances(pick.chances, seed, &strata);
  return pick;
}

namespace {
// The judge's bias stratum by stratum, when the labels are an active pick's (see the header);
// nullopt when they are not. {bias, its variance}.
std::optional<std::pair<double, double>> StratifiedBias(const std::vector<double>& f_all,
                                                        const std::vector<double>& f_labelled,
                                                        const std::vector<double>& y,
                                                        const std::vector<double>& pi) {
  std::vector<double> size(kActiveStrata, 0.0);
  for (double v : f_all) size[ActiveStratum(v)] += 1;
  std::vector<std::vector<double>> errors(kActiveStrata);
  for (size_t i = 0; i < y.size(); ++i) {
    errors[ActiveStratum(f_labelled[i])].push_back(f_labelled[i] - y[i]);
  }
  for (size_t i = 0; i < y.size(); ++i) {
    const int h = ActiveStratum(f_labelled[i]);
    const double chance = static_cast<double>(errors[h].size()) / size[h];
    if (std::abs(pi[i] - chance) > 1e-9 * chance) return std::nullopt;
  }
  const double big_n = static_cast<double>(f_all.size());
  std::vector<std::pair<double, double>> stats(kActiveStrata);  // each stratum's mean, variance
  double pooled = 0;
  long pooled_n = 0;
  for (int h = 0; h < kActiveStrata; ++h) {
    if (errors[h].empty()) {
      if (size[h] > 0) return std::nullopt;  // a stratum nobody labelled
      continue;
    }
    stats[h] = MeanVariance(errors[h]);
    if (errors[h].size() > 1) {
      pooled += stats[h].second * static_cast<double>(errors[h].size() - 1);
      pooled_n += static_cast<long>(errors[h].size()) - 1;
    }
  }
  double bias = 0, variance = 0;
  for (int h = 0; h < kActiveStrata; ++h) {
    if (errors[h].empty()) continue;
    const auto [mean, var] = stats[h];
    const double n_h = static_cast<double>(errors[h].size());
    // A stratum of one label (of more rows) borrows the others' spread.
    const double spread = errors[h].size() > 1 ? var : pooled_n > 0 ? pooled / pooled_n : 0;
    bias += size[h] / big_n * mean;
    variance += (size[h] / big_n) * (size[h] / big_n) * (1 - n_h / size[h]) * spread / n_h;
  }
  return std::pair{bias, variance};
}
}  // namespace

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
  double variance = f_var / big_n + d_var / n;
  if (auto stratified = StratifiedBias(f_all, f_labelled, y, pi)) {
    r.rectifier = stratified->first;
    variance = f_var / big_n + stratified->second;
    r.stratified = true;
  }
  r.ppi = Interval(f_mean - r.rectifier, variance, static_cast<long>(f_all.size()), z);
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
  // Active picks, per label: the stratified variance sum_h (N_h/N)^2 S_h^2 / a_h, a_h the
  // stratum's share of the labels (ActivePickChances' weights, before rounding and the floor of
  // two) and S_h^2 the mean spread^2 of its rows.
  const std::vector<double> weight = ActiveWeights(f);
  std::vector<double> size(kActiveStrata, 0.0), share(kActiveStrata, 0.0),
      spread(kActiveStrata, 0.0);
  for (size_t i = 0; i < f.size(); ++i) {
    const int h = ActiveStratum(f[i]);
    size[h] += 1;
    share[h] += weight[i];
    spread[h] += Unsure(f[i]) * Unsure(f[i]);
  }
  double active = 0;
  for (int h = 0; h < kActiveStrata; ++h) {
    if (size[h] == 0) continue;
    active += (size[h] / big_n) * (size[h] / big_n) * (spread[h] / size[h]) / share[h];
  }
  return LabelsNeeded{std::ceil(uniform / room), std::ceil(active / room)};
}

}  // namespace tala::analysis
