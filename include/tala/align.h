#pragma once
// Align: a judge fitted to a project's labels (tala align, issue 55 item 1). From a results file
// and the labels people gave its rows, each labelled metric's pass threshold — the score at and
// above which the judge's verdict is "right" — is fitted by cross-validation, and agreement with
// the people (balanced accuracy, Cohen's kappa at the threshold; AUROC) is measured on held-out
// folds before and after, with a paired bootstrap interval of the gain. A judge profile (JSON)
// keeps the thresholds; `tala eval --judge-profile` diagnoses with them and records the profile's
// digest in the manifest, and `tala compare` refuses runs made with different profiles unless
// allowed. When the held-out folds show no gain, no profile is written unless forced.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tala/evaluate.h"
#include "tala/status.h"

namespace tala {

struct AlignOptions {
  std::string results, labels;
  std::vector<std::string> metrics;  // empty: every metric the labels give values of
  double default_threshold = 0.7;    // tala's diagnosis threshold: the "before"
  int folds = 5;
  uint64_t seed = 1;
  int resamples = 2000;  // of the paired bootstrap of the gain
  // Labelled rows kept in the profile for LLM judges (few-shot examples), per metric: up to this
  // many, half the people called right and half wrong where the labels allow, seeded.
  int examples = 0;
};

struct AlignedMetric {
  std::string metric;
  int64_t labels = 0, positives = 0;
  double threshold = 0;  // fitted on every label
  // Held-out balanced accuracy (the mean of the right shares among positives and negatives:
  // calling everything one way scores 0.5 whatever the balance).
  double accuracy_before = 0, accuracy_after = 0;
  std::optional<double> kappa_before, kappa_after, auroc;
  double gain = 0, gain_low = 0, gain_high = 0;  // accuracy after - before, 95% interval
  bool improves = false;                         // the interval of the gain lies above 0
};

struct Alignment {
  std::vector<AlignedMetric> metrics;
  bool improves = false;                  // some metric improves
  std::vector<LabelledExample> examples;  // AlignOptions::examples per aligned metric
};

// kInvalidArgument when no metric has 10 labels or more with both verdicts among them;
// reading errors as ReadResults / ReadLabels give them.
Result<Alignment> Align(const AlignOptions& options);
std::string FormatAlignment(const Alignment& alignment);
// The judge profile: {"tala_judge_profile": 1, "results", "labels", "metrics": {name:
// {"threshold", ...}}, "examples": [{"metric", "question", "answer", "verdict": "right" |
// "wrong"}]} (examples only when kept).
std::string JudgeProfileJson(const Alignment& alignment, const AlignOptions& options);

// A judge profile's thresholds (metric -> threshold) and its digest (the file's SHA-256, first
// 16 hex digits), for tala eval --judge-profile. kDataError naming the file for a bad profile.
struct JudgeProfile {
  std::vector<std::pair<std::string, double>> thresholds;
  std::vector<LabelledExample> examples;
  std::string digest;
};
Result<JudgeProfile> ReadJudgeProfile(const std::string& path);
// Reads the profile at `path` and adds its thresholds to `thresholds` (one already there, given
// by hand, wins) and, when `examples` is given, its labelled examples to it (for LLM judges);
// returns the profile's digest, for the manifest. Errors as ReadJudgeProfile's.
Result<std::string> ApplyJudgeProfile(const std::string& path,
                                      std::map<std::string, double>& thresholds,
                                      std::vector<LabelledExample>* examples = nullptr);

}  // namespace tala
