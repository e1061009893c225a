// tala power: sample sizes for evaluation sets.

#include <cstdio>

#include "cli/commands.h"
#include "tala/power.h"

namespace tala::cli {

namespace {
int RunPower(const PowerQuery& q) {
  auto answer = Power(q);
  if (!answer) {
    // The engine names the values as Python does (p1, discordant); the CLI's flags have dashes.
    std::fprintf(stderr, "tala power: %s (flags: --p --n --p1 --p2 --paired --discordant)\n",
                 answer.error().message().c_str());
    return 2;
  }
  std::printf("%s\n", answer->text.c_str());
  return 0;
}
}  // namespace

void AddPowerCommand(CLI::App& app, int* exit_code) {
  auto q = std::make_shared<PowerQuery>();
  CLI::App* cmd = app.add_subcommand(
      "power",
      "Sample sizes for evaluation sets: the margin of error of a score (--p, --n), or "
      "the rows needed to tell two systems apart (--p1, --p2; --paired --discordant D "
      "when both score the same rows).");
  auto unit = CLI::Range(0.0, 1.0);
  cmd->add_option("--p", q->p, "a score (a proportion), with --n")->check(unit);
  cmd->add_option("--n", q->n, "rows the score is measured on")->check(CLI::PositiveNumber);
  cmd->add_option("--p1", q->p1, "the score of system 1")->check(unit);
  cmd->add_option("--p2", q->p2, "the score of system 2")->check(unit);
  cmd->add_flag("--paired", q->paired, "both systems are scored on the same rows");
  cmd->add_option("--discordant", q->discordant,
                  "with --paired: expected share of rows on which the systems disagree")
      ->check(unit);
  cmd->add_option("--alpha", q->alpha, "two-sided significance level")
      ->capture_default_str()
      ->check(CLI::Range(1e-6, 0.5));
  cmd->add_option("--power", q->power, "chance to detect the difference")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 0.9999));
  cmd->callback([q, exit_code] { *exit_code = RunPower(*q); });
}

}  // namespace tala::cli
