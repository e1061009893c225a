// tala compare BASE CANDIDATE: paired comparison of two results files, row by row (by id).

#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "tala/compare.h"
#include "tala/pairwise.h"

namespace tala::cli {

namespace {
struct CompareFlags {
  CompareOptions options;
  bool json = false;
  bool pairwise = false;
  PairwiseOptions pair;
  double min_win_rate = -1;  // < 0: no gate
};

// --pairwise: which answer is better, row by row, judged side by side (tala/pairwise.h).
int RunPairwise(CompareFlags f) {
  f.pair.base = f.options.base;
  f.pair.candidate = f.options.candidate;
  f.pair.sequential.min_win_rate = f.min_win_rate;
  auto report = ComparePairwise(f.pair);
  if (!report) {
    PrintError("tala compare", report.error());
    return ExitCodeFor(report.error());
  }
  std::string out = f.json ? PairwiseJson(*report) : FormatPairwise(*report);
  if (f.min_win_rate >= 0) {
    // A sequential run that decided the gate stands by that decision; one that could not judged
    // every pair, and reads the gate as a full run does.
    const bool decided = report->sequential && report->sequential->decided;
    const bool pass = decided ? report->sequential->passed : report->win_rate >= f.min_win_rate;
    if (!f.json && decided) {
      out += fmt::format(
          "{}  win rate >= {:.3f}: the anytime-valid interval [{:.3f}, {:.3f}] "
          "after {} pairs is {} it\n",
          pass ? "PASS" : "FAIL", f.min_win_rate, report->sequential->low, report->sequential->high,
          report->pairs, pass ? "above" : "below");
    } else if (!f.json) {
      out += fmt::format("{}  win rate >= {:.3f}: {:.3f} over {} pairs\n", pass ? "PASS" : "FAIL",
                         f.min_win_rate, report->win_rate, report->pairs);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return pass ? 0 : 1;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

int RunCompare(const CompareFlags& f) {
  if (f.pair.sequential.on && !f.pairwise) {
    std::fprintf(stderr,
                 "tala compare: --sequential judges pairs until a gate is decided: it needs "
                 "--pairwise (to stop judging rows once a gate is decided, use tala eval or tala "
                 "ci --sequential)\n");
    return 2;
  }
  if (f.pairwise) return RunPairwise(f);
  if (f.min_win_rate >= 0) {
    std::fprintf(stderr, "tala compare: --min-win-rate gates a --pairwise comparison\n");
    return 2;
  }
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

void AddCompareCommand(CLI::App& app, int* exit_code, const EvalOptions& defaults) {
  auto f = std::make_shared<CompareFlags>();
  f->pair.eval = defaults;
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare two results files row by row (paired by id, or by question and reference when "
      "the data has no ids): per metric the mean "
      "difference, a paired bootstrap 95% interval, a sign-flip permutation p-value, "
      "a verdict (better / worse / no detectable change, respecting each metric's "
      "direction), and the rows that moved most. With --pairwise, which answer is better row by "
      "row instead: an LLM judge reads both answers side by side, twice with the order swapped "
      "(a verdict that follows the order is a tie, and the position bias is reported); the "
      "offline judge compares its own readings. Exit 0, 1 when --min-win-rate fails, 2 usage or "
      "input error, 3 the judge failed.");
  cmd->footer(
      "Examples:\n"
      "  tala compare main.jsonl branch.jsonl\n"
      "  tala compare a.jsonl b.jsonl --pairwise --judge openai:gpt-4o-mini --sequential "
      "--min-win-rate 0.5");
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
  cmd->add_flag("--pairwise", f->pairwise,
                "which answer is better, row by row: win / tie / loss for the candidate, its win "
                "rate with a 95% interval, and (LLM judges) the position bias");
  cmd->add_option("--criterion", f->pair.criterion,
                  "with --pairwise: grounded, relevant, complete, or a criterion in your own words "
                  "(LLM judges)")
      ->capture_default_str();
  cmd->add_option("--judge", f->pair.eval.judge,
                  "with --pairwise (default: tala.toml's judge, else offline): offline (compares "
                  "its readings: faithfulness, "
                  "response_relevancy, factual_correctness) or openai:MODEL / anthropic:MODEL, set "
                  "up as in tala.toml")
      ->capture_default_str();
  cmd->add_option("--min-win-rate", f->min_win_rate,
                  "with --pairwise: exit 1 when the candidate's win rate (ties count half) is "
                  "below this")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--sequential", f->pair.sequential.on,
                "with --pairwise and an LLM judge: judge the pairs in a seeded random order, a "
                "batch at a time, and stop once an anytime-valid confidence sequence on the win "
                "rate decides --min-win-rate (or is narrower than --target-width); the pairs left "
                "are listed as not judged. A gate it cannot decide is read from every pair, as "
                "without it");
  cmd->add_option("--target-width", f->pair.sequential.target_width,
                  "with --sequential: also stop once the win rate's interval is this narrow")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--alpha", f->pair.sequential.alpha,
                  "with --sequential: the chance of a wrong decision allowed")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 0.5));
  cmd->add_option("--order-seed", f->pair.sequential.seed,
                  "with --sequential: the seed of the order the pairs are judged in")
      ->capture_default_str();
  cmd->callback([f, exit_code] { *exit_code = RunCompare(*f); });
}

}  // namespace tala::cli
