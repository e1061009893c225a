// tala compare BASE CANDIDATE: paired comparison of two results files, row by row (by id).

#include <cstdio>

#include "cli/commands.h"
#include "tala/compare.h"

namespace tala::cli {

namespace {
struct CompareFlags {
  CompareOptions options;
  bool json = false;
};

int RunCompare(const CompareFlags& f) {
  auto comparison = Compare(f.options);
  if (!comparison) {
    const Status& e = comparison.error();
    PrintError("tala compare", e);
    return 2;
  }
  if (!comparison->judge_warning.empty()) {
    std::fprintf(stderr, "tala compare: warning: %s\n", comparison->judge_warning.c_str());
  }
  if (!comparison->version_warning.empty()) {
    std::fprintf(stderr, "tala compare: warning: different versions: %s\n",
                 comparison->version_warning.c_str());
  }
  std::string out = f.json ? ComparisonJson(*comparison) : FormatComparison(*comparison);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
}  // namespace

void AddCompareCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<CompareFlags>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare two results files row by row (paired by id, or by question and reference when "
      "the data has no ids): per metric the mean "
      "difference, a paired bootstrap 95% interval, a sign-flip permutation p-value, "
      "a verdict (better / worse / no detectable change, respecting each metric's "
      "direction), and the rows that moved most.");
  cmd->footer(
      "Examples:\n"
      "  tala compare main.jsonl branch.jsonl\n"
      "  tala compare main.jsonl branch.jsonl --json --top 10");
  cmd->add_option("BASE", f->options.base, "results file of the baseline run")->required();
  cmd->add_option("CANDIDATE", f->options.candidate, "results file of the candidate run")
      ->required();
  cmd->add_option("--top", f->options.top, "rows to list per direction")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  cmd->add_flag("--json", f->json, "print the comparison as JSON");
  cmd->add_flag("--allow-version-mismatch", f->options.allow_version_mismatch,
                "compare even when the runs' metric or prompt versions differ (their manifests "
                "say so)");
  cmd->add_flag("--pair-by-order", f->options.pair_by_order,
                "rows without ids whose questions repeat: pair them by position (each pair's "
                "questions are still checked to match) instead of refusing");
  cmd->callback([f, exit_code] { *exit_code = RunCompare(*f); });
}

}  // namespace tala::cli
