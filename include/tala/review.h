#pragma once
// Review: choose rows of a results file for people to label, and the self-contained HTML page
// they label them in (keyboard-driven, kept in the browser's storage, exported as labels.jsonl
// for `tala calibrate --labels` and `tala estimate`). Shared by `tala review` and Python.

#include <cstdint>
#include <string>
#include <vector>

#include "tala/review_page.h"
#include "tala/status.h"

namespace tala {

struct ReviewOptions {
  std::string results;
  std::string metric = "faithfulness";
  int n = 50;
  // random: uniform (valid for tala estimate); stratified: the same over equal-width score bins,
  // each bin's share of rows proportional to its size (uniform on average, and every score range
  // shown); low: the worst scores first; uncertain: the scores nearest `threshold` first.
  std::string pick = "stratified";
  uint64_t seed = 1;
  double threshold = 0.5;
  int strata = 5;
};

// kInvalidArgument for an unknown pick, n < 1, or a metric no row has a value of.
Result<ReviewQueue> PickForReview(const ReviewOptions& options);

}  // namespace tala
