#pragma once
// Agreement between a judge and human labels: raw agreement, Cohen's kappa, the confusion
// matrix, AUROC (ties count half), the best-threshold accuracy, and pairwise accuracy within
// groups (every positive should outscore every negative of its group; ties count half).
// Pure functions over plain vectors; thread-safe.

#include <optional>
#include <string>
#include <vector>

namespace tala::analysis {

struct LabelledScore {
  bool human_positive = false;
  double judge = 0;   // the judge's score (0/1 for a binary judge)
  std::string group;  // for pairwise accuracy; empty when not grouped
};

struct Confusion {
  long true_positive = 0, false_positive = 0, true_negative = 0, false_negative = 0;
  long n() const { return true_positive + false_positive + true_negative + false_negative; }
};

Confusion Confuse(const std::vector<LabelledScore>& rows, double threshold);
double RawAgreement(const Confusion& c);
// Undefined (nullopt) when both raters use one label throughout (expected agreement 1).
std::optional<double> CohensKappa(const Confusion& c);
// Undefined without both a positive and a negative row.
std::optional<double> Auroc(const std::vector<LabelledScore>& rows);

// Krippendorff's alpha for nominal labels: each unit the labels its reviewers gave (units with
// fewer than two are left out). 1: full agreement; 0: as by chance. Undefined (nullopt) with no
// unit of two labels or when every label is the same.
std::optional<double> KrippendorffAlpha(const std::vector<std::vector<int>>& units);

struct BestThreshold {
  double threshold = 0;
  double accuracy = 0;
};
BestThreshold BestThresholdAccuracy(const std::vector<LabelledScore>& rows);

struct PairwiseResult {
  double accuracy = 0;
  long pairs = 0;
  long groups = 0;  // groups holding at least one positive and one negative
};
std::optional<PairwiseResult> PairwiseAccuracy(const std::vector<LabelledScore>& rows);

}  // namespace tala::analysis
