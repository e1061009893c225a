// tala merge SHARD...: the shards of one run (tala eval --shard) into one results file and the
// summary the single run would have printed.

#include <cstdio>

#include "cli/commands.h"
#include "io/reports/console_summary.h"
#include "tala/merge.h"

namespace tala::cli {

namespace {
struct MergeFlags {
  MergeOptions options;
  bool json = false;
};

int RunMerge(const MergeFlags& f) {
  auto summary = Merge(f.options);
  if (!summary) {
    PrintError("tala merge", summary.error());
    return ExitCodeFor(summary.error());
  }
  for (const std::string& w : summary->warnings) {
    std::fprintf(stderr, "tala merge: warning: %s\n", w.c_str());
  }
  if (f.json) {
    std::printf("%s\n", io::FormatSummaryJson(*summary).c_str());
  } else {
    std::printf("%s", io::FormatSummaryTable(*summary).c_str());
    std::printf("\nper-row results: %s\n", summary->results_path.c_str());
  }
  return summary->rows_failed > 0 ? 3 : 0;
}
}  // namespace

void AddMergeCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<MergeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "Join the shards of one run (tala eval --shard I/N, on any processes or machines) into "
      "one results file and print the summary a single run would have printed: the same rows "
      "in the dataset's order, the same means, intervals, diagnosis and accounting. Every shard "
      "must be given, finished (RESULTS.shard.json beside it) and from the same dataset, judge "
      "and metrics. Exit 0, or 3 when rows failed, 2 on a missing or mismatched shard.");
  cmd->add_option("SHARD", f->options.shards,
                  "each shard's results file (or its .shard.json), in any order")
      ->required();
  cmd->add_option("--out,-o", f->options.out, "merged results file (written whole, then renamed)")
      ->capture_default_str();
  cmd->add_option("--dataset-name", f->options.dataset_label,
                  "the dataset named in the merged manifest when each shard read its own file "
                  "(--shard-by partition); default: the first shard's");
  cmd->add_flag("--json", f->json, "print the summary as JSON (as tala eval --json does)");
  cmd->callback([f, exit_code] { *exit_code = RunMerge(*f); });
}

}  // namespace tala::cli
