#pragma once
// Estimate: a metric's mean over every row of a run, corrected for the judge's bias with human
// labels on a few rows (prediction-powered inference, Angelopoulos et al., 2023), shared by
// `tala estimate`, `tala eval --labels` and the Python package. Assumptions: the labelled rows are
// a uniform random subset of the scored rows (labels `tala review` picked by score are refused
// unless allowed), and the human value is the truth the estimate is about. Thread-safe.

#include <string>
#include <vector>

#include "tala/status.h"

namespace tala {

struct EstimateOptions {
  std::string results;  // the results file: the judge's values on all rows
  std::string labels;   // labels.jsonl
  std::string metric;
  bool allow_biased_labels = false;  // estimate even from rows picked by score (low, uncertain)
};

struct Estimate {
  std::string metric;
  long n_total = 0;     // rows with a judge value
  long n_labelled = 0;  // of them, rows with a human value
  double ppi_mean = 0, ppi_low = 0, ppi_high = 0;
  double judge_mean = 0, judge_low = 0, judge_high = 0;
  double human_mean = 0, human_low = 0, human_high = 0;
  double judge_bias = 0;           // mean(judge − human) on the labelled rows
  double effective_n = 0;          // human labels alone that would give the PPI interval's width
  std::string pick;                // how the labelled rows were chosen ("random", ...; "unknown")
  std::vector<std::string> notes;  // caveats printed under the figures
};

// kInvalidArgument when fewer than 2 labelled rows match, or the labels were picked by score
// (unless allowed); kIoError/kDataError for unreadable files.
Result<Estimate> EstimateMean(const EstimateOptions& options);

std::string FormatEstimate(const Estimate& estimate);  // what `tala estimate` prints
std::string EstimateJson(const Estimate& estimate);    // `tala estimate --json`

}  // namespace tala
