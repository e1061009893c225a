// tala estimate RESULTS --labels LABELS --metric M: the prediction-powered mean of a metric.

#include <cstdio>

#include "cli/commands.h"
#include "tala/estimate.h"

namespace tala::cli {

namespace {
struct EstimateFlags {
  EstimateOptions options;
  bool json = false;
};

int RunEstimate(const EstimateFlags& f) {
  auto e = EstimateMean(f.options);
  if (!e) {
    const Status& s = e.error();
    PrintError("tala estimate", s);
    return ExitCodeFor(s);
  }
  std::string out = f.json ? EstimateJson(*e) : FormatEstimate(*e);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
}  // namespace

void AddEstimateCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<EstimateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "estimate",
      "A metric's mean over every row of a run, corrected for the judge's bias by human labels "
      "on a uniform random few (prediction-powered inference): theta = mean_N(judge) - "
      "mean_n(judge - human), variance var_N(judge)/N + var_n(judge - human)/n, beside the "
      "judge-only and people-only means with their 95% intervals and the labels the judge's "
      "scores are worth. Labels come from tala review (labels.jsonl).");
  cmd->add_option("RESULTS", f->options.results, "results file (the judge's values)")->required();
  cmd->add_option("--labels", f->options.labels, "labels.jsonl (tala review's export)")->required();
  cmd->add_option("--metric", f->options.metric, "the metric to estimate")->required();
  cmd->add_flag("--allow-biased-labels", f->options.allow_biased_labels,
                "estimate even when the labelled rows were picked by score (the interval is then "
                "not valid; a warning says so)");
  cmd->add_flag("--json", f->json,
                "print {metric, n_labelled, n_total, ppi_mean, ppi_ci, judge_mean, human_mean, "
                "...}");
  cmd->callback([f, exit_code] { *exit_code = RunEstimate(*f); });
}

}  // namespace tala::cli
