#include "analysis/paired_comparison.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

#include "analysis/intervals.h"

namespace tala::analysis {

const char* VerdictName(PairedResult::Verdict v) {
  switch (v) {
    case PairedResult::Verdict::kBetter:
      return "better";
    case PairedResult::Verdict::kWorse:
      return "worse";
    case PairedResult::Verdict::kNoDetectableChange:
      return "no detectable change";
  }
  return "?";
}

PairedResult ComparePaired(const std::vector<double>& base, const std::vector<double>& candidate,
                           const PairedOptions& o) {
  PairedResult r;
  const size_t n = base.size();
  r.n = static_cast<long>(n);
  std::vector<double> diff(n);
  for (size_t i = 0; i < n; ++i) {
    diff[i] = candidate[i] - base[i];
    r.base_mean += base[i];
    r.candidate_mean += candidate[i];
    r.mean_difference += diff[i];
  }
  r.base_mean /= n;
  r.candidate_mean /= n;
  r.mean_difference /= n;
  // Paired bootstrap: resampling the per-row differences keeps each row's two scores together.
  std::tie(r.ci_low, r.ci_high) = BootstrapMeanInterval(diff, o.resamples, o.seed, 0.95);
  std::mt19937_64 rng(o.seed + 1);
  // Sign-flip permutation test: under "no change" each row's difference is as likely negated.
  const double observed = std::abs(r.mean_difference);
  long extreme = 0;
  std::bernoulli_distribution flip(0.5);
  for (int k = 0; k < o.resamples; ++k) {
    double s = 0;
    for (double d : diff) s += flip(rng) ? d : -d;
    if (std::abs(s / n) >= observed - 1e-12) ++extreme;
  }
  r.p_value = static_cast<double>(extreme + 1) / (o.resamples + 1);
  bool up = r.ci_low > 0, down = r.ci_high < 0;
  if (up || down) {
    bool improved = o.lower_is_better ? down : up;
    r.verdict = improved ? PairedResult::Verdict::kBetter : PairedResult::Verdict::kWorse;
  }
  return r;
}

}  // namespace tala::analysis
