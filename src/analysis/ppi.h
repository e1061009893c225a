#pragma once
// Prediction-powered inference for a mean (Angelopoulos et al., 2023): a judge's values f on all
// N rows and human values y on n of them, labelled as a uniform random subset, give
//   θ = mean_N(f) − mean_n(f − y),  Var = var_N(f)/N + var_n(f − y)/n,
// an unbiased estimate of the human mean over all N rows whatever the judge's bias, with the
// normal interval θ ± z·√Var. Sample variances (n − 1). Pure; thread-safe.

#include <vector>

namespace tala::analysis {

struct MeanInterval {
  double mean = 0, low = 0, high = 0, variance = 0;  // variance of the mean
  long n = 0;
};

struct PpiResult {
  MeanInterval ppi;
  MeanInterval judge;    // mean_N(f): what the judge alone says, bias included
  MeanInterval human;    // mean_n(y): the labels alone
  double rectifier = 0;  // mean_n(f − y): the judge's bias measured on the labelled rows
  // Human labels that would give the PPI variance on their own: var_n(y) / Var (0 when y does
  // not vary).
  double effective_n = 0;
};

// REQUIRES: f_labelled.size() == y.size() >= 2, f_all.size() >= 2.
PpiResult PredictionPoweredMean(const std::vector<double>& f_all,
                                const std::vector<double>& f_labelled, const std::vector<double>& y,
                                double z = 1.959963984540054);

}  // namespace tala::analysis
