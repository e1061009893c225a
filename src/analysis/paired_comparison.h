#pragma once
// Paired comparison of two runs on the same rows (`tala compare`): mean difference
// (candidate − base), a seeded paired-bootstrap 95% interval of it, a seeded sign-flip
// permutation test p-value (two-sided), and a verdict that respects the metric's direction:
// better or worse when the interval excludes 0, else no detectable change. Pure; thread-safe.

#include <cstdint>
#include <string>
#include <vector>

namespace tala::analysis {

struct PairedResult {
  long n = 0;
  double base_mean = 0, candidate_mean = 0;
  double mean_difference = 0;  // candidate − base
  double ci_low = 0, ci_high = 0;
  double p_value = 1;
  enum class Verdict {
    kBetter,
    kWorse,
    kNoDetectableChange
  } verdict = Verdict::kNoDetectableChange;
};

struct PairedOptions {
  int resamples = 10000;
  uint64_t seed = 20231;
  bool lower_is_better = false;
};

// REQUIRES: base.size() == candidate.size() > 0.
PairedResult ComparePaired(const std::vector<double>& base, const std::vector<double>& candidate,
                           const PairedOptions& options = {});
const char* VerdictName(PairedResult::Verdict v);

}  // namespace tala::analysis
