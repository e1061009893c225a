// tala eval DATA: scores every row, writes the results file, prints the summary table.

#include <unistd.h>

#include <cstdio>

#include "cli/commands.h"
#include "io/reports/console_summary.h"
#include "tala/evaluate.h"

namespace tala::cli {

namespace {
struct EvalFlags {
  EvalOptions options;
  std::string on_error = "fail";
  bool json = false;
  bool quiet = false;
};

void PrintErrors(const RunSummary& partial) {
  for (const Status& e : partial.errors) std::fprintf(stderr, "%s\n", e.ToString().c_str());
}

int RunEval(EvalFlags& flags) {
  flags.options.on_error = flags.on_error == "skip" ? OnError::kSkip : OnError::kFail;
  const bool tty = isatty(STDERR_FILENO) != 0;
  if (!flags.quiet) {
    flags.options.progress = [tty](int64_t done, int64_t total) {
      if (tty) {
        if (done == total || done % 64 == 0) {
          std::fprintf(stderr, "\rscored %lld/%lld rows", static_cast<long long>(done),
                       static_cast<long long>(total));
          if (done == total) std::fprintf(stderr, "\n");
        }
      } else if (done == total || done % 1000 == 0) {
        std::fprintf(stderr, "scored %lld/%lld rows\n", static_cast<long long>(done),
                     static_cast<long long>(total));
      }
    };
  }
  RunSummary partial;
  auto summary = Evaluate(flags.options, &partial);
  if (!summary) {
    PrintErrors(partial);
    std::fprintf(stderr, "tala eval: %s\n", summary.error().ToString().c_str());
    if (partial.rows_scored > 0) {
      std::fprintf(stderr, "tala eval: %lld rows were scored and kept in %s\n",
                   static_cast<long long>(partial.rows_scored), partial.results_path.c_str());
    }
    return ExitCodeFor(summary.error());
  }
  if (summary->rows_skipped > 0) {
    PrintErrors(*summary);
    std::fprintf(stderr, "tala eval: skipped %lld invalid rows\n",
                 static_cast<long long>(summary->rows_skipped));
  }
  if (flags.json) {
    std::printf("%s\n", io::FormatSummaryJson(*summary).c_str());
  } else {
    std::printf("%s", io::FormatSummaryTable(*summary).c_str());
    if (summary->results_path != "-") {
      std::printf("\nper-row results: %s\n", summary->results_path.c_str());
    }
  }
  return summary->rows_failed > 0 ? 3 : 0;
}
}  // namespace

void AddEvalCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<EvalFlags>();
  EvalOptions& o = flags->options;
  CLI::App* cmd = app.add_subcommand(
      "eval",
      "Score every row of a dataset with the chosen metrics and judge; write per-row "
      "results (JSON Lines, flushed row by row) and print a summary. Exit 0 when the run "
      "completed, 2 on usage or input errors, 3 when the judge failed on some rows.");
  cmd->add_option("DATA", o.dataset, "dataset file (.jsonl, .json, .csv) or - for stdin")
      ->required();
  cmd->add_option("--metrics,-m", o.metrics,
                  "comma-separated metrics, options as name:key=value "
                  "(e.g. faithfulness,factual_correctness:mode=precision); default: every "
                  "metric whose fields the dataset has (see `tala metrics`)")
      ->envname("TALA_METRICS");
  cmd->add_option("--k", o.ks,
                  "cut-offs for hit_rate, precision_at_k, recall_at_k and ndcg, e.g. 1,3,5,10 "
                  "(default: the whole ranking)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_option("--judge,-j", o.judge, "judge: offline or replay (see `tala judges`)")
      ->capture_default_str()
      ->envname("TALA_JUDGE");
  cmd->add_option("--out,-o", o.out, "results file (JSON Lines), - for stdout")
      ->capture_default_str();
  cmd->add_option("--format", o.format, "dataset format: auto, jsonl, json or csv")
      ->capture_default_str();
  cmd->add_option("--on-error", flags->on_error,
                  "bad rows: fail (report up to 20 errors, score nothing) or skip (count them)")
      ->capture_default_str()
      ->check(CLI::IsMember({"fail", "skip"}));
  cmd->add_option("--diagnosis-threshold", o.diagnosis_threshold,
                  "a row fails a pipeline stage when its context_recall, context_precision, "
                  "faithfulness or response_relevancy is below this")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--json", flags->json, "print the summary as JSON");
  cmd->add_flag("--quiet,-q", flags->quiet, "no progress on stderr");
  cmd->callback([flags, exit_code] { *exit_code = RunEval(*flags); });
}

}  // namespace tala::cli
