#pragma once
// Calibrate: how far to trust a judge, from human labels and judge values in one JSON Lines file
// (a tala results file, or any labelled data), shared by `tala calibrate` and the Python package.
// Pure apart from reading the file: safe to call from any thread.

#include <optional>
#include <string>
#include <vector>

#include "tala/status.h"

namespace tala {

struct CalibrateOptions {
  std::string file;
  std::string human;       // dotted path of the human label ("metadata.label")
  std::string judge;       // dotted path of the judge's value ("scores.faithfulness")
  std::string positive;    // the human label counted as positive; empty: true, 1, "yes"
  std::string pair_by;     // dotted path of a group id for pairwise accuracy; empty: none
  double threshold = 0.5;  // judge values at or above it say positive
  // Human labels from `tala review` (labels.jsonl) joined by id with `file`, a results file; then
  // `metric` names both the label and the judge's score (human and judge paths are not used),
  // a label at or above `threshold` counts as positive, and the claims people labelled are
  // compared with the judge's claim verdicts.
  std::string labels;
  std::string metric;
  // Several reviewers (a line per reviewer and row, each with its "labeller"): the human value
  // is the majority of their yes/no (at `threshold`; a tie is left out and listed), or this
  // reviewer's alone when named.
  std::string reviewer;
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
  // With labels: rows whose id the results lack, and claim-level agreement (claims labelled by
  // people, how many of the judge's supported/unsupported verdicts they agree with).
  long unmatched_labels = 0;
  long claims = 0, claims_agreed = 0;
  long judge_supported_human_not = 0, judge_unsupported_human_supported = 0;
  std::optional<double> claims_kappa;
  // Several reviewers: who they are, the rows two or more labelled, how often they agree (raw,
  // Cohen's kappa for two reviewers, Krippendorff's alpha for any number), the rows whose
  // reviewers disagree (for a second look; ties among them have no majority and are left out of
  // the judge's figures).
  std::vector<std::string> reviewers;
  std::string reviewer;  // the reviewer whose labels were the human value (empty: the majority)
  long reviewed_by_several = 0, reviewer_ties = 0;
  std::optional<double> reviewer_agreement, reviewer_kappa, reviewer_alpha;
  std::vector<std::string> disagreements;
};

// kDataError names file:line and path for a missing or mistyped value; kNotFound when no row
// has both a human label and a judge value.
Result<Calibration> Calibrate(const CalibrateOptions& options);

std::string FormatCalibration(const Calibration& calibration);  // what `tala calibrate` prints
std::string CalibrationJson(const Calibration& calibration);    // `tala calibrate --json`

// Judge drift: the same rows scored by two judges (an old and a new model version, say).
struct JudgeDriftOptions {
  std::string judge_a, judge_b;  // results files
  std::string metric;            // empty: every metric of judge_a's file
  double threshold = 0.5;        // a verdict is value >= threshold
};

struct FlippedRow {
  std::string id;
  double a = 0, b = 0;
};

struct JudgeDrift {
  std::string metric;
  long pairs = 0;
  double agreement = 0;  // share of rows whose verdicts agree
  std::optional<double> kappa;
  double mean_a = 0, mean_b = 0, shift = 0, shift_low = 0, shift_high = 0;  // b − a, paired
  std::vector<FlippedRow> flipped;  // rows whose verdict differs, in file order
};

// kNotFound when no metric is scored on rows common to both files.
Result<std::vector<JudgeDrift>> CompareJudges(const JudgeDriftOptions& options);
std::string FormatJudgeDrift(const std::vector<JudgeDrift>& drifts, double threshold);

}  // namespace tala
