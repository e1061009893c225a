#pragma once
// Estimate: a metric's mean over every row of a run, corrected for the judge's bias with human
// labels on a few rows (prediction-powered inference, Angelopoulos et al., 2023), shared by
// `tala estimate`, `tala eval --labels` and the Python package. Assumptions: the labelled rows are
// a uniform random subset of the scored rows (labels `tala review` picked by score are refused
// unless allowed), and the human value is the truth the estimate is about. Thread-safe.

#include <string>

#include "tala/run_summary.h"  // Estimate
#include "tala/status.h"

namespace tala {

struct EstimateOptions {
  std::string results;  // the results file: the judge's values on all rows
  std::string labels;   // labels.jsonl
  std::string metric;
  bool allow_biased_labels = false;  // estimate even from rows picked by score (low, uncertain)
};

// kInvalidArgument when fewer than 2 labelled rows match, or the labels were picked by score
// (unless allowed); kIoError/kDataError for unreadable files.
Result<Estimate> EstimateMean(const EstimateOptions& options);

std::string FormatEstimate(const Estimate& estimate);  // what `tala estimate` prints
std::string EstimateJson(const Estimate& estimate);    // `tala estimate --json`

}  // namespace tala
