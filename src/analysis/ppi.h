#pragma once
// Prediction-powered inference for a mean (Angelopoulos et al., 2023): a judge's values f on all
// N rows and human values y on n of them, labelled as a uniform random subset, give
//   θ = mean_N(f) − mean_n(f − y),  Var = var_N(f)/N + var_n(f − y)/n,
// an unbiased estimate of the human mean over all N rows whatever the judge's bias, with the
// normal interval θ ± z·√Var. Sample variances (n − 1). Pure; thread-safe.

#include <cstddef>
#include <cstdint>
#include <optional>
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
  bool stratified = false;  // the bias was read stratum by stratum (an active pick's labels)
};

// REQUIRES: f_labelled.size() == y.size() >= 2, f_all.size() >= 2.
PpiResult PredictionPoweredMean(const std::vector<double>& f_all,
                                const std::vector<double>& f_labelled, const std::vector<double>& y,
                                double z = 1.959963984540054);

}  // namespace tala::analysis

namespace tala::analysis {

// Labels where they narrow the interval most (tala review --pick active): each row's chance of
// being picked, for n labels among the judge's values f (each in [0, 1]). The rows are
// stratified by the judge's value (ActiveStratum) and each stratum gets a fixed number of
// labels, at least two where it has two rows, the rest in proportion to its share of a weight
// that is half uniform and half how unsure the judge's value is, sqrt(f (1 - f)) (the spread
// of a label around a calibrated judge's value), floored at 0.05; every row of a stratum has its
// stratum's chance. The estimate then reads the judge's error stratum by stratum, so a judge
// that is wrong by a like amount on like values (miscalibrated but consistent) costs little.
// With fewer labels than two per stratum the chances are the unstratified weights themselves,
// capped at 1. The chances sum to n (n <= f.size()).
std::vector<double> ActivePickChances(const std::vector<double>& f, long n);

// The strata of the active pick: a value of exactly 0, five equal bins over (0, 1), exactly 1
// (judges' values pile up at the ends).
inline constexpr int kActiveStrata = 7;
int ActiveStratum(double f);

// Exactly n rows drawn with the given chances of inclusion (summing to n): systematic sampling
// over the rows in a seeded random order, so row i is drawn with chance chances[i]. With
// `groups` (one per row), the order keeps each group together: a group whose chances sum to a
// whole number k gets exactly k rows.
std::vector<size_t> DrawWithChances(const std::vector<double>& chances, uint64_t seed,
                                    const std::vector<int>* groups = nullptr);

// The active pick drawn: exactly n rows of ActivePickChances(f, n), the strata kept together so
// each stratum gets its whole number of labels; `chances` holds every row's chance.
struct ActivePick {
  std::vector<size_t> rows;
  std::vector<double> chances;
};
ActivePick DrawActivePick(const std::vector<double>& f, long n, uint64_t seed);

// Prediction-powered mean when the labelled rows were drawn with unequal chances (pi, one per
// labelled row): the judge's bias is estimated by Horvitz-Thompson, mean over all N rows of
// (f - y) / pi on the labelled ones, with the with-replacement variance of its terms; equal
// chances n/N give PredictionPoweredMean's estimate. When the chances are those of the active
// pick's strata (every labelled row's chance is its stratum's labelled count over its size, and
// every stratum with rows has labels), the bias is estimated stratum by stratum instead, with
// the stratified variance sum_h (N_h/N)^2 (1 - n_h/N_h) var_h / n_h.
PpiResult PredictionPoweredMeanWeighted(const std::vector<double>& f_all,
                                        const std::vector<double>& f_labelled,
                                        const std::vector<double>& y, const std::vector<double>& pi,
                                        double z = 1.959963984540054);

// Labels needed for an interval of `width` (whole width): uniform picks and active ones, from the
// judge's values alone (a calibrated judge's spread standing in for the labels'); nullopt when
// the judge's own spread over N rows is already wider than that.
struct LabelsNeeded {
  double uniform = 0, active = 0;
};
std::optional<LabelsNeeded> LabelsForWidth(const std::vector<double>& f, double width,
                                           double z = 1.959963984540054);

}  // namespace tala::analysis
