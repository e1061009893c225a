// tala calibrate FILE: agreement between a judge and human labels in one JSON Lines file.

#include <cstdio>

#include "analysis/judge_agreement.h"
#include "cli/commands.h"
#include "io/readers/labelled_values.h"

namespace tala::cli {

namespace {
struct CalibrateFlags {
  std::string file;
  io::LabelledValuesOptions values;
  double threshold = 0.5;
  bool json = false;
};

std::string Num(const std::optional<double>& v) {
  if (!v) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", *v);
  return buf;
}

int RunCalibrate(const CalibrateFlags& f) {
  auto values = io::ReadLabelledValues(f.file, f.values);
  if (!values) {
    std::fprintf(stderr, "tala calibrate: %s\n", values.error().ToString().c_str());
    return ExitCodeFor(values.error());
  }
  std::vector<analysis::LabelledScore> rows;
  long undefined = 0;
  bool numeric = false;
  for (const auto& r : values->rows) {
    if (!r.judge) {
      ++undefined;
      continue;
    }
    numeric = numeric || (*r.judge != 0.0 && *r.judge != 1.0);
    rows.push_back({r.human_positive, *r.judge, r.group});
  }
  if (rows.empty()) {
    std::fprintf(stderr, "tala calibrate: no row has both a human label and a judge value\n");
    return 2;
  }
  analysis::Confusion c = analysis::Confuse(rows, f.threshold);
  auto kappa = analysis::CohensKappa(c);
  std::optional<double> auroc;
  std::optional<analysis::BestThreshold> best;
  if (numeric) {
    auroc = analysis::Auroc(rows);
    best = analysis::BestThresholdAccuracy(rows);
  }
  std::optional<analysis::PairwiseResult> pairwise;
  if (!f.values.group_path.empty()) pairwise = analysis::PairwiseAccuracy(rows);
  if (f.json) {
    std::printf(
        "{\"n\":%ld,\"undefined_judge\":%ld,\"missing_human\":%ld,\"threshold\":%g,"
        "\"raw_agreement\":%s,\"kappa\":%s,\"confusion\":{\"tp\":%ld,\"fp\":%ld,\"tn\":%ld,"
        "\"fn\":%ld},\"auroc\":%s,\"best_threshold\":%s,\"best_threshold_accuracy\":%s,"
        "\"pairwise_accuracy\":%s,\"pairs\":%ld}\n",
        c.n(), undefined, values->skipped_missing_human, f.threshold,
        Num(analysis::RawAgreement(c)).c_str(), Num(kappa).c_str(), c.true_positive,
        c.false_positive, c.true_negative, c.false_negative, Num(auroc).c_str(),
        best ? Num(best->threshold).c_str() : "null", best ? Num(best->accuracy).c_str() : "null",
        pairwise ? Num(pairwise->accuracy).c_str() : "null", pairwise ? pairwise->pairs : 0L);
    return 0;
  }
  std::printf(
      "n: %ld rows (%ld with an undefined judge value left out, %ld without a human "
      "label)\n",
      c.n(), undefined, values->skipped_missing_human);
  std::printf("judge positive when %s >= %g\n", f.values.judge_path.c_str(), f.threshold);
  std::printf("raw agreement: %s\nCohen's kappa: %s\n", Num(analysis::RawAgreement(c)).c_str(),
              Num(kappa).c_str());
  std::printf("\nconfusion matrix      judge +   judge -\n");
  std::printf("  human +            %7ld   %7ld\n", c.true_positive, c.false_negative);
  std::printf("  human -            %7ld   %7ld\n", c.false_positive, c.true_negative);
  if (numeric) {
    std::printf("\nAUROC: %s\nbest-threshold accuracy: %s at threshold %s\n", Num(auroc).c_str(),
                Num(best->accuracy).c_str(), Num(best->threshold).c_str());
  }
  if (pairwise) {
    std::printf("pairwise accuracy: %s over %ld pairs in %ld groups (ties count half)\n",
                Num(pairwise->accuracy).c_str(), pairwise->pairs, pairwise->groups);
  }
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
      "accuracy with --pair-by.");
  cmd->add_option("FILE", f->file, "JSON Lines file")->required();
  cmd->add_option("--human", f->values.human_path,
                  "dotted path of the human label, e.g. metadata.label")
      ->required();
  cmd->add_option("--judge", f->values.judge_path,
                  "dotted path of the judge's value, e.g. scores.faithfulness")
      ->required();
  cmd->add_option("--positive", f->values.positive,
                  "human label value that counts as positive (default: true, 1, yes)");
  cmd->add_option("--threshold", f->threshold, "judge value at or above which it says positive")
      ->capture_default_str();
  cmd->add_option("--pair-by", f->values.group_path,
                  "dotted path of a group id: within each group every positive row should "
                  "outscore every negative one");
  cmd->add_flag("--json", f->json, "print the figures as JSON");
  cmd->callback([f, exit_code] { *exit_code = RunCalibrate(*f); });
}

}  // namespace tala::cli
