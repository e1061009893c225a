#pragma once
// Align: a judge fitted to a project's labels (tala align, issue 55 item 1). From a results file
// and the labels people gave its rows, each labelled metric's pass threshold — the score at and
// above which the judge's verdict is "right" — is fitted by cross-validation, and agreement with
// the people (balanced accuracy, Cohen's kappa at the threshold; AUROC) is measured on held-out
// folds before and after, with a paired bootstrap interval of the gain. A judge profile (JSON)
// keeps the thresholds; `tala eval --judge-profile` diagnoses with them and records the profile's
// digest in the manifest, and `tala compare` refuses runs made with different profiles unless
// allowed. When the held-out folds show no gain, no profile is written unless forced.
//
// For the offline judge's blended relevance readings (response_relevancy, context_relevance),
// the blend's weights are refitted too: the dataset's labelled rows are read again through the
// judge (the results' manifest names the dataset; --data gives another copy), and a logistic is
// fitted to the labels, pulled toward the built-in weights with a strength chosen by
// cross-validation (analysis/logistic_fit.h). The refitted weights go in the profile only when
// held-out folds show they agree with people better than the fitted threshold alone.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tala/evaluate.h"
#include "tala/offline_blend.h"
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
  // The dataset the results were scored from, for refitting the offline judge's relevance
  // blends; empty: the file the results' manifest names, when it is there unchanged.
  std::string data;
};

// The offline judge's relevance blend refitted to the labels.
struct AlignedBlend {
  std::vector<std::string> features;
  std::vector<double> weights;  // the bias, then one per feature: fitted on every labelled row
  double pull = 0;              // the L2 pull toward the built-in weights chosen (0: kept them)
  int64_t rows = 0;             // labelled rows read again through the judge
  // Held out: balanced accuracy and kappa with the refitted weights and their own threshold;
  // AUROC with the built-in weights and with the refitted ones.
  double accuracy = 0, threshold_only_accuracy = 0;
  std::optional<double> kappa, auroc_before, auroc_after;
  double threshold = 0;                // on the refitted scores, fitted on every label
  double gain_low = 0, gain_high = 0;  // accuracy over the threshold alone's, 95% interval
  bool kept = false;                   // the interval lies above 0: the profile holds them
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
  // The blend refit, for a metric the offline judge reads through one; else why there is none
  // ("" for a metric no blend scores).
  std::optional<AlignedBlend> blend;
  std::string blend_note;
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
// {"threshold", ..., "blend": {"features": [...], "weights": [bias, ...]}}}, "examples":
// [{"metric", "question", "answer", "verdict": "right" | "wrong"}]} (a blend and examples only
// when kept).
std::string JudgeProfileJson(const Alignment& alignment, const AlignOptions& options);

// A judge profile's thresholds (metric -> threshold) and its digest (the file's SHA-256, first
// 16 hex digits), for tala eval --judge-profile. kDataError naming the file for a bad profile.
struct JudgeProfile {
  std::vector<std::pair<std::string, double>> thresholds;
  OfflineBlend blend;
  std::vector<LabelledExample> examples;
  std::string digest;
};
Result<JudgeProfile> ReadJudgeProfile(const std::string& path);
// Reads the profile at `path` and adds its thresholds to `thresholds` (one already there, given
// by hand, wins), its labelled examples to `examples` (for LLM judges) and its refitted blend
// weights to `blend` (for the offline judge), each when given; returns the profile's digest,
// for the manifest. Errors as ReadJudgeProfile's.
Result<std::string> ApplyJudgeProfile(const std::string& path,
                                      std::map<std::string, double>& thresholds,
                                      std::vector<LabelledExample>* examples = nullptr,
                                      OfflineBlend* blend = nullptr);

}  // namespace tala
