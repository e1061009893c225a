#pragma once
// Sample sizes for evaluation sets (`tala power`): how many rows a score needs to be trusted, and
// how many to tell two systems apart. Normal approximations; pure; thread-safe.

#include <optional>

namespace tala::analysis {

// The standard normal quantile Φ⁻¹(p) for 0 < p < 1 (Acklam's rational approximation, |error|
// below 1.2e-9).
double NormalQuantile(double p);

// Half-width of the two-sided interval of a proportion p measured on n rows: z·√(p(1−p)/n).
double MarginOfError(double p, double n, double confidence);

// Rows per system to detect p1 vs p2 on independent samples (two-sided test of two proportions,
// pooled variance under the null).
double RowsForTwoProportions(double p1, double p2, double alpha, double power);

// Rows to detect a difference p2 − p1 when both systems score the same rows, with `discordant` the
// expected share of rows where they disagree (McNemar; Connor 1987).
// nullopt when the difference cannot arise from that many discordant rows (|p2 − p1| > discordant).
std::optional<double> RowsForPairedProportions(double p1, double p2, double discordant,
                                               double alpha, double power);

}  // namespace tala::analysis
