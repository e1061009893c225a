// tala review RESULTS --out queue.html: rows for people to label, in one self-contained page.

#include <cstdio>
#include <fstream>

#include "cli/commands.h"
#include "tala/review.h"

namespace tala::cli {

namespace {
struct ReviewFlags {
  ReviewOptions options;
  std::string out = "review.html";
};

int RunReview(const ReviewFlags& f) {
  auto queue = PickForReview(f.options);
  if (!queue) {
    const Status& s = queue.error();
    bool file_error = s.code() == ErrorCode::kIoError || s.code() == ErrorCode::kDataError;
    std::fprintf(stderr, "tala review: %s\n", (file_error ? s.ToString() : s.message()).c_str());
    return ExitCodeFor(s);
  }
  std::ofstream out(f.out, std::ios::binary | std::ios::trunc);
  out << RenderReviewPage(*queue);
  out.close();
  if (!out) {
    std::fprintf(stderr, "tala review: cannot write %s\n", f.out.c_str());
    return 2;
  }
  std::fprintf(stderr,
               "tala review: %zu of %lld rows with %s picked (%s, seed %llu) into %s; open it in a "
               "browser, label with the keyboard, export labels.jsonl, then run tala estimate or "
               "tala calibrate --labels\n",
               queue->rows_json.size(), static_cast<long long>(queue->population),
               queue->metric.c_str(), queue->pick.c_str(),
               static_cast<unsigned long long>(queue->seed), f.out.c_str());
  return 0;
}
}  // namespace

void AddReviewCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<ReviewFlags>();
  CLI::App* cmd = app.add_subcommand(
      "review",
      "Pick rows of a results file for people to label and write one self-contained HTML page "
      "to label them in: the question, the answer split into the judge's claims with verdicts "
      "and evidence, the ranked chunks; keyboard-driven (y/n per row, s/u per claim, 1-5 for "
      "rubrics, a note), kept in the browser, exported as labels.jsonl with how the rows were "
      "picked (tala estimate needs a random or stratified pick).");
  ReviewOptions& o = f->options;
  cmd->add_option("RESULTS", o.results, "results file written by tala eval")->required();
  cmd->add_option("--out,-o", f->out, "the page to write")->capture_default_str();
  cmd->add_option("--n", o.n, "rows to pick")->capture_default_str()->check(CLI::Range(1, 100000));
  cmd->add_option("--pick", o.pick,
                  "random (uniform), stratified (uniform within score bins, every range shown), "
                  "low (worst first) or uncertain (nearest --threshold first)")
      ->capture_default_str();
  cmd->add_option("--metric", o.metric, "the metric people label")->capture_default_str();
  cmd->add_option("--seed", o.seed, "seed of the random picks (recorded in the labels)")
      ->capture_default_str();
  cmd->add_option("--threshold", o.threshold, "the decision threshold --pick uncertain is near")
      ->capture_default_str();
  cmd->callback([f, exit_code] { *exit_code = RunReview(*f); });
}

}  // namespace tala::cli
