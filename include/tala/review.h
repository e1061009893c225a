#pragma once
// Review: choose rows of a results file for people to label, and the self-contained HTML page
// they label them in (keyboard-driven, kept in the browser's storage, exported as labels.jsonl
// for `tala calibrate --labels` and `tala estimate`). Shared by `tala review` and Python.

#include <cstdint>
#include <string>
#include <vector>

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

struct ReviewQueue {
  std::string results, metric, pick;
  uint64_t seed = 0;
  double threshold = 0.5;
  int64_t population = 0;              // rows with a value of the metric
  std::vector<std::string> rows_json;  // the picked rows' results lines, in results order
};

// kInvalidArgument for an unknown pick, n < 1, or a metric no row has a value of.
Result<ReviewQueue> PickForReview(const ReviewOptions& options);

// One HTML file: no network, every row's text escaped; `#selftest` labels three rows by key
// presses and writes the export into the page (for the browser test). `served`: the page is
// served by `tala review --serve` and also saves every change by POSTing the export to /labels
// on the server it came from.
// `served`: the page saves every change to the server it came from, sending `token` (a secret
// of that server) with each save.
std::string RenderReviewPage(const ReviewQueue& queue, bool served = false,
                             const std::string& token = "");

}  // namespace tala
