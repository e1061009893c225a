// tala calibrate FILE: agreement between a judge and human labels in one JSON Lines file.

#include <cstdio>

#include "cli/commands.h"
#include "tala/calibrate.h"

namespace tala::cli {

namespace {
struct CalibrateFlags {
  CalibrateOptions options;
  bool json = false;
};

int RunCalibrate(const CalibrateFlags& f) {
  auto calibration = Calibrate(f.options);
  if (!calibration) {
    const Status& e = calibration.error();
    bool file_error = e.code() == ErrorCode::kIoError || e.code() == ErrorCode::kDataError;
    std::fprintf(stderr, "tala calibrate: %s\n", (file_error ? e.ToString() : e.message()).c_str());
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
      "accuracy with --pair-by.");
  CalibrateOptions& o = f->options;
  cmd->add_option("FILE", o.file, "JSON Lines file")->required();
  cmd->add_option("--human", o.human, "dotted path of the human label, e.g. metadata.label")
      ->required();
  cmd->add_option("--judge", o.judge, "dotted path of the judge's value, e.g. scores.faithfulness")
      ->required();
  cmd->add_option("--positive", o.positive,
                  "human label value that counts as positive (default: true, 1, yes)");
  cmd->add_option("--threshold", o.threshold, "judge value at or above which it says positive")
      ->capture_default_str();
  cmd->add_option("--pair-by", o.pair_by,
                  "dotted path of a group id: within each group every positive row should "
                  "outscore every negative one");
  cmd->add_flag("--json", f->json, "print the figures as JSON");
  cmd->callback([f, exit_code] { *exit_code = RunCalibrate(*f); });
}

}  // namespace tala::cli
