// tala power: sample sizes for evaluation sets.

#include <cmath>
#include <cstdio>
#include <optional>

#include "analysis/power.h"
#include "cli/commands.h"

namespace tala::cli {

namespace {
struct PowerFlags {
  std::optional<double> p, p1, p2, discordant;
  std::optional<long> n;
  double alpha = 0.05, power = 0.8;
  bool paired = false;
};

int RunPower(const PowerFlags& f) {
  if (f.p && f.n) {
    double margin = analysis::MarginOfError(*f.p, static_cast<double>(*f.n), 1 - f.alpha);
    std::printf("a score of %.3f on %ld rows is known to ±%.3f (%.0f%% interval: %.3f to %.3f)\n",
                *f.p, *f.n, margin, 100 * (1 - f.alpha), *f.p - margin, *f.p + margin);
    return 0;
  }
  if (f.p1 && f.p2) {
    if (*f.p1 == *f.p2) {
      std::fprintf(stderr, "tala power: --p1 and --p2 must differ\n");
      return 2;
    }
    if (f.paired) {
      if (!f.discordant) {
        std::fprintf(stderr,
                     "tala power: --paired needs --discordant (the expected share of rows "
                     "on which the two systems disagree)\n");
        return 2;
      }
      auto rows = analysis::RowsForPairedProportions(*f.p1, *f.p2, *f.discordant, f.alpha, f.power);
      if (!rows) {
        std::fprintf(stderr,
                     "tala power: a difference of %.3f needs at least that share of "
                     "discordant rows; --discordant %.3f is too small\n",
                     std::abs(*f.p2 - *f.p1), *f.discordant);
        return 2;
      }
      std::printf(
          "paired (the same rows scored by both systems, %.0f%% discordant): %.0f rows to "
          "tell %.3f from %.3f at alpha %.2f with power %.2f\n",
          100 * *f.discordant, std::ceil(*rows), *f.p1, *f.p2, f.alpha, f.power);
      return 0;
    }
    double rows = analysis::RowsForTwoProportions(*f.p1, *f.p2, f.alpha, f.power);
    std::printf(
        "independent samples: %.0f rows per system to tell %.3f from %.3f at alpha %.2f "
        "with power %.2f\n",
        std::ceil(rows), *f.p1, *f.p2, f.alpha, f.power);
    return 0;
  }
  std::fprintf(stderr,
               "tala power: give --p and --n (margin of error) or --p1 and --p2 (rows "
               "needed); see tala power --help\n");
  return 2;
}
}  // namespace

void AddPowerCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<PowerFlags>();
  CLI::App* cmd = app.add_subcommand(
      "power",
      "Sample sizes for evaluation sets: the margin of error of a score (--p, --n), or "
      "the rows needed to tell two systems apart (--p1, --p2; --paired --discordant D "
      "when both score the same rows).");
  auto unit = CLI::Range(0.0, 1.0);
  cmd->add_option("--p", f->p, "a score (a proportion), with --n")->check(unit);
  cmd->add_option("--n", f->n, "rows the score is measured on")->check(CLI::PositiveNumber);
  cmd->add_option("--p1", f->p1, "the score of system 1")->check(unit);
  cmd->add_option("--p2", f->p2, "the score of system 2")->check(unit);
  cmd->add_flag("--paired", f->paired, "both systems are scored on the same rows");
  cmd->add_option("--discordant", f->discordant,
                  "with --paired: expected share of rows on which the systems disagree")
      ->check(unit);
  cmd->add_option("--alpha", f->alpha, "two-sided significance level")
      ->capture_default_str()
      ->check(CLI::Range(1e-6, 0.5));
  cmd->add_option("--power", f->power, "chance to detect the difference")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 0.9999));
  cmd->callback([f, exit_code] { *exit_code = RunPower(*f); });
}

}  // namespace tala::cli
