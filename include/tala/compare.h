#pragma once
// Compare: two results files paired row by row (by id), shared by `tala compare` and the Python
// package. Per metric: the mean difference (candidate − base), a seeded paired-bootstrap 95%
// interval, a sign-flip permutation p-value, a direction-aware verdict, and the rows that moved
// most. Pure apart from reading the files: safe to call from any thread.

#include <string>
#include <vector>

#include "tala/metric.h"
#include "tala/status.h"

namespace tala {

struct CompareOptions {
  std::string base;       // results file of the baseline run
  std::string candidate;  // results file of the candidate run
  int top = 3;            // rows listed per direction
  // Runs made with different metric or prompt versions are not comparable: refused unless set,
  // and then warned about in Comparison::version_warning.
  bool allow_version_mismatch = false;
  // Rows without ids whose questions repeat: pair by position (checked to hold the same
  // questions) instead of refusing.
  bool pair_by_order = false;
};

struct RowMove {
  std::string id;
  double change = 0;  // candidate − base
};

struct MetricComparison {
  std::string metric;
  Direction direction = Direction::kHigherIsBetter;
  long pairs = 0;
  double base_mean = 0, candidate_mean = 0, difference = 0;
  double ci_low = 0, ci_high = 0;  // 95% interval of the difference
  double p_value = 1;
  std::string verdict;          // better | worse | no detectable change
  std::vector<RowMove> gains;   // largest rises first, at most `top`
  std::vector<RowMove> losses;  // largest falls first, at most `top`
};

struct Comparison {
  std::vector<MetricComparison> metrics;  // in the candidate's metric order
  long unmatched_rows = 0;                // candidate rows with no base row of the same id
  std::string version_warning;            // non-empty: versions differ (allowed by the options)
  // Non-empty when the judge's provider reported different model versions or system
  // fingerprints for the two runs: the judge itself may have changed.
  std::string judge_warning;
  std::string pairing_note;  // how rows were paired when the data has no ids; "" for ids
};

// kIoError/kDataError for an unreadable file; kInvalidArgument when versions differ and that is
// not allowed; kNotFound when no metric is scored on rows common to both files.
Result<Comparison> Compare(const CompareOptions& options);

// The table `tala compare` prints, with the rows that moved most.
std::string FormatComparison(const Comparison& comparison);
// The object `tala compare --json` prints.
std::string ComparisonJson(const Comparison& comparison);

}  // namespace tala
