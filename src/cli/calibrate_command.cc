// tala calibrate FILE: agreement between a judge and human labels in one JSON Lines file.

#include <cstdio>

#include "cli/commands.h"
#include "tala/calibrate.h"

namespace tala::cli {

namespace {
struct CalibrateFlags {
  CalibrateOptions options;
  std::string judge_a, judge_b;
  bool json = false;
};

int RunDrift(const CalibrateFlags& f) {
  auto drift = CompareJudges({.judge_a = f.judge_a,
                              .judge_b = f.judge_b,
                              .metric = f.options.metric,
                              .threshold = f.options.threshold});
  if (!drift) {
    const Status& s = drift.error();
    PrintError("tala calibrate", s);
    return ExitCodeFor(s);
  }
  std::string out = FormatJudgeDrift(*drift, f.options.threshold);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

int RunCalibrate(const CalibrateFlags& f) {
  const CalibrateOptions& o = f.options;
  if (!f.judge_a.empty() || !f.judge_b.empty()) {
    if (f.judge_a.empty() || f.judge_b.empty()) {
      std::fprintf(stderr, "tala calibrate: --judge-a and --judge-b go together\n");
      return 2;
    }
    return RunDrift(f);
  }
  if (o.file.empty()) {
    std::fprintf(stderr, "tala calibrate: give FILE (or --judge-a A --judge-b B)\n");
    return 2;
  }
  if (o.labels.empty() && (o.human.empty() || o.judge.empty())) {
    std::fprintf(stderr,
                 "tala calibrate: give --human PATH and --judge PATH (one labelled file), or "
                 "--labels LABELS --metric M (tala review's labels against a results file)\n");
    return 2;
  }
  auto calibration = Calibrate(f.options);
  if (!calibration) {
    const Status& e = calibration.error();
    PrintError("tala calibrate", e);
    return ExitCodeFor(e);
  }
  std::string out = f.json ? CalibrationJson(*calibration) : FormatCalibration(*calibration);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
}  // namespace

void AddCalibrateCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<CalibrateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "How far to trust a judge: agreement between its values and human labels in "
      "one JSON Lines file (e.g. a tala results file, whose metadata carries the "
      "input's extra fields). Prints n, raw agreement, Cohen's kappa, the confusion "
      "matrix, AUROC and best-threshold accuracy for a numeric judge, and pairwise "
      "accuracy with --pair-by. With --labels (tala review's export) and --metric, the labels "
      "are joined with a results file by id and people's claim labels are compared with the "
      "judge's claim verdicts.");
  CalibrateOptions& o = f->options;
  cmd->add_option("FILE", o.file, "JSON Lines file (with --labels: the results file)");
  cmd->add_option("--judge-a", f->judge_a,
                  "judge drift: results of the same rows by one judge (say the old model)...");
  cmd->add_option("--judge-b", f->judge_b,
                  "...and by another: agreement, kappa, the paired mean shift with its 95% "
                  "interval, and the rows whose verdicts flipped");
  cmd->add_option("--human", o.human, "dotted path of the human label, e.g. metadata.label");
  cmd->add_option("--judge", o.judge, "dotted path of the judge's value, e.g. scores.faithfulness");
  cmd->add_option("--labels", o.labels,
                  "labels.jsonl from tala review, joined with FILE by id; adds claim-level "
                  "agreement (needs --metric)");
  cmd->add_option("--metric", o.metric,
                  "with --labels: the labelled metric; with --judge-a/-b: the metric compared "
                  "(default: all)");
  cmd->add_option("--positive", o.positive,
                  "human label value that counts as positive (default: true, 1, yes)");
  cmd->add_option("--threshold", o.threshold, "judge value at or above which it says positive")
      ->capture_default_str();
  cmd->add_option("--pair-by", o.pair_by,
                  "dotted path of a group id: within each group every positive row should "
                  "outscore every negative one");
  cmd->add_option("--reviewer", o.reviewer,
                  "with --labels from several reviewers (a line per reviewer and row, each with "
                  "its labeller): take this reviewer's labels as the human value (default: the "
                  "majority; how often the reviewers agree is printed either way)");
  cmd->add_flag("--json", f->json, "print the figures as JSON");
  cmd->callback([f, exit_code] { *exit_code = RunCalibrate(*f); });
}

}  // namespace tala::cli
