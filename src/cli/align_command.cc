// tala align RESULTS --labels LABELS: a judge profile fitted to people's labels (tala/align.h):
// thresholds, the offline judge's refitted relevance blends, labelled examples for LLM judges.

#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "fs/atomic_file.h"
#include "tala/align.h"

namespace tala::cli {

namespace {
struct AlignFlags {
  AlignOptions options;
  std::string out = "judge-profile.json";
  bool force = false;
};

int RunAlign(const AlignFlags& f) {
  auto aligned = Align(f.options);
  if (!aligned) {
    PrintError("tala align", aligned.error());
    return ExitCodeFor(aligned.error());
  }
  const std::string text = FormatAlignment(*aligned);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!aligned->improves && !f.force) {
    std::fprintf(stderr,
                 "tala align: no metric agrees with the labels better on held-out folds with a "
                 "fitted threshold: no profile written (--force writes it anyway)\n");
    return 1;
  }
  if (Status s = fs::WriteFileAtomically(f.out, JudgeProfileJson(*aligned, f.options)); !s.ok()) {
    PrintError("tala align", s);
    return 2;
  }
  std::fprintf(
      stderr,
      "tala align: wrote %s; score with it: tala eval DATA --judge-profile %s (or tala ci)\n",
      f.out.c_str(), f.out.c_str());
  return 0;
}
}  // namespace

void AddAlignCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<AlignFlags>();
  CLI::App* cmd = app.add_subcommand(
      "align",
      "Fit the judge to your people's labels: for each labelled metric, the pass threshold (the "
      "score at and above which the judge's verdict is right) that agrees with the labels most, "
      "fitted by cross-validation, with held-out accuracy and Cohen's kappa before (threshold "
      "0.7) and after, and a paired bootstrap interval of the gain. Writes a judge profile that "
      "tala eval --judge-profile and tala ci --judge-profile diagnose with (recorded in the "
      "manifest; tala compare refuses runs made with different profiles unless allowed). For the "
      "offline judge's response_relevancy and context_relevance, the weights of its blend are "
      "refitted too (the labelled rows read again from the dataset the results name), pulled "
      "toward the built-in ones, and kept only when held-out folds show they agree with people "
      "more than the threshold alone. When no metric gains on held-out folds, nothing is written "
      "(exit 1) unless --force.");
  cmd->footer(
      "Examples:\n"
      "  tala align results.jsonl --labels labels.jsonl\n"
      "  tala align results.jsonl --labels labels.jsonl --metric faithfulness --out p.json\n"
      "  tala align results.jsonl --labels labels.jsonl --data moved/dataset.jsonl");
  cmd->add_option("RESULTS", f->options.results, "results file the labelled rows come from")
      ->required();
  cmd->add_option("--labels", f->options.labels, "labels.jsonl (tala review's export)")->required();
  cmd->add_option("--metric", f->options.metrics,
                  "metric to align (repeatable; default: every metric the labels give)");
  cmd->add_option("--out,-o", f->out, "the judge profile written")->capture_default_str();
  cmd->add_flag("--force", f->force, "write the profile even when no metric gains");
  cmd->add_option("--folds", f->options.folds, "cross-validation folds")
      ->capture_default_str()
      ->check(CLI::Range(2, 50));
  cmd->add_option("--examples", f->options.examples,
                  "keep up to N labelled rows per metric in the profile (half right, half wrong): "
                  "LLM judges given the profile see the ones nearest each row they judge, with "
                  "the people's verdict, as data in the request")
      ->capture_default_str()
      ->check(CLI::Range(0, 200));
  cmd->add_option("--data", f->options.data,
                  "the dataset the results were scored from, where the results' manifest names "
                  "a path that is not there: the offline judge reads the labelled rows again to "
                  "refit its relevance blends (response_relevancy, context_relevance)");
  cmd->add_option("--seed", f->options.seed, "seed of the folds, the bootstrap and the examples")
      ->capture_default_str();
  cmd->callback([f, exit_code] { *exit_code = RunAlign(*f); });
}

}  // namespace tala::cli
