#pragma once
// Calibrate: how far to trust a judge, from human labels and judge values in one JSON Lines file
// (a tala results file, or any labelled data), shared by `tala calibrate` and the Python package.
// Pure apart from reading the file: safe to call from any thread.

#include <optional>
#include <string>

#include "tala/status.h"

namespace tala {

struct CalibrateOptions {
  std::string file;
  std::string human;       // dotted path of the human label ("metadata.label")
  std::string judge;       // dotted path of the judge's value ("scores.faithfulness")
  std::string positive;    // the human label counted as positive; empty: true, 1, "yes"
  std::string pair_by;     // dotted path of a group id for pairwise accuracy; empty: none
  double threshold = 0.5;  // judge values at or above it say positive
};

struct Calibration {
  std::string judge_path;
  double threshold = 0.5;
  long n = 0;                // rows with both a human label and a judge value
  long undefined_judge = 0;  // rows whose judge value is null
  long missing_human = 0;    // rows without a human label
  long true_positive = 0, false_positive = 0, true_negative = 0, false_negative = 0;
  std::optional<double> raw_agreement, kappa;
  bool numeric = false;  // the judge gave values other than 0 and 1
  std::optional<double> auroc, best_threshold, best_threshold_accuracy;  // numeric judges
  std::optional<double> pairwise_accuracy;                               // with pair_by
  long pairs = 0, groups = 0;
};

// kDataError names file:line and path for a missing or mistyped value; kNotFound when no row
// has both a human label and a judge value.
Result<Calibration> Calibrate(const CalibrateOptions& options);

std::string FormatCalibration(const Calibration& calibration);  // what `tala calibrate` prints
std::string CalibrationJson(const Calibration& calibration);    // `tala calibrate --json`

}  // namespace tala
