#pragma once
// The rows picked for people to label (PickForReview, tala/review.h) and the page they label
// them in, rendered by the reports (src/io/reports/review_page.cc).

#include <cstdint>
#include <string>
#include <vector>

namespace tala {

struct ReviewQueue {
  std::string results, metric, pick;
  uint64_t seed = 0;
  double threshold = 0.5;
  int64_t population = 0;              // rows with a value of the metric
  std::vector<std::string> rows_json;  // the picked rows' results lines, in results order
  // The reviewer the page is for (tala review --assign): their name is filled in and their work
  // kept apart from another reviewer's in the same browser. Empty: whoever opens it.
  std::string labeller;
  std::vector<std::string> notes;  // what the pick says of itself (labels needed for a width)
};

// One HTML file: no network, every row's text escaped; `#selftest` labels three rows by key
// presses and writes the export into the page (for the browser test). `served`: the page is
// served by `tala review --serve` and also saves every change by POSTing the export to /labels
// on the server it came from.
// `served`: the page saves every change to the server it came from, sending `token` (a secret
// of that server) with each save.
std::string RenderReviewPage(const ReviewQueue& queue, bool served = false,
                             const std::string& token = "");

// The review page of a golden set's candidates (tala review --testset; the lines of the
// candidates file tala testset wrote): the question with its provenance and checks, the draft
// reference (editable), the quotes marked in their chunks; keys accept, edit, unanswerable,
// reject (with a reason), needs-expert; exported as the labels `tala testset accept` reads.
// `#selftest` decides five items by key presses and writes the export into the page.
std::string RenderTestsetReviewPage(const std::vector<std::string>& candidates_json,
                                    const std::string& candidates_path, bool served = false,
                                    const std::string& token = "");

}  // namespace tala
