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
  // shown); low: the worst scores first; uncertain: the scores nearest `threshold` first;
  // active: each row drawn with a known chance, larger where the judge's value is least sure
  // (analysis::ActivePickChances), so fewer labels give tala estimate the same interval; each
  // label carries its row's chance (pick_probability) and the estimate weights by it.
  std::string pick = "stratified";
  uint64_t seed = 1;
  double threshold = 0.5;
  int strata = 5;
  // > 0: the queue's notes say how many labels an estimate of this interval width needs.
  double target_width = 0;
};

// kInvalidArgument for an unknown pick, n < 1, or a metric no row has a value of.
Result<ReviewQueue> PickForReview(const ReviewOptions& options);

// The picked rows split between reviewers (tala review --assign): a seeded `overlap` share of
// them, rounded, goes to every reviewer (their agreement is read from it: tala calibrate), the
// rest is dealt in turn; each queue keeps results order and names its labeller.
// kInvalidArgument for fewer than two names, an empty or repeated name, or an overlap outside
// [0, 1].
Result<std::vector<ReviewQueue>> AssignReviewers(const ReviewQueue& queue,
                                                 const std::vector<std::string>& labellers,
                                                 double overlap, uint64_t seed);

}  // namespace tala
