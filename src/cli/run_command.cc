// tala run GOLDEN --target T --out DATASET: calls the system under test for every golden row and
// writes the dataset `tala eval` scores.

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <optional>

#include "cli/commands.h"
#include "cli/progress_line.h"
#include "cli/run_flags.h"
#include "cli/stop_signals.h"

namespace tala::cli {

int CallTarget(RunOptions options, bool quiet, const char* who, RunReport* report) {
  ProgressLine line(isatty(STDERR_FILENO) != 0);
  if (!quiet) options.progress = [&line](const Progress& p) { line.Update(p); };
  RunReport partial;
  std::optional<Result<RunReport>> ran;
  int stop_code = 130;
  {
    StopOnSignals signals;
    options.stop = signals.flag();
    ran.emplace(RunTarget(options, &partial));
    stop_code = signals.exit_code();
  }
  auto& result = *ran;
  line.Finish();
  *report = result ? *result : partial;
  if (!result) {
    std::fprintf(stderr, "%s: %s\n", who, result.error().ToString().c_str());
    int64_t written = partial.rows_answered + partial.rows_failed;
    if (written > 0) {
      std::fprintf(stderr, "%s: %lld rows were written to %s; --resume calls for the rest\n", who,
                   static_cast<long long>(written), options.out.c_str());
    }
    return result.error().code() == ErrorCode::kCancelled ? stop_code : ExitCodeFor(result.error());
  }
  std::string text = FormatRunReport(*result);
  std::fwrite(text.data(), 1, text.size(), stderr);
  return 0;
}

void AddRunCommand(CLI::App& app, int* exit_code, const RunOptions& defaults) {
  auto f = std::make_shared<RunFlags>();
  f->options = defaults;
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Call the system under test for every golden row and write the dataset tala eval scores: "
      "the golden fields, plus the target's response, retrieved_contexts (and "
      "retrieved_context_ids), latency_ms and any token or cost figures it reports; a row the "
      "target failed has target_error instead. Targets: http://HOST/PATH (POST {\"question\": "
      "...}, reads answer and contexts), 'exec:COMMAND' (one long-lived process speaking JSON "
      "Lines: the golden row with its id in, {\"id\", \"answer\", \"contexts\"} out, several in "
      "flight), 'exec-once:COMMAND' (one process per row). Request templates and reply paths "
      "go in tala.toml's [target] table. Exit 0 when every row was answered, 1 when some "
      "failed, 2 usage or input error, 3 the target cannot be reached.");
  cmd->add_option("GOLDEN", f->options.golden,
                  "golden questions, JSON Lines: user_input, optional id, reference, "
                  "reference_context_ids and any other fields (carried over); a user_input that "
                  "lists the user's messages is played turn by turn (or --simulate instead)");
  cmd->add_option("--out,-o", f->options.out, "the dataset to write (JSON Lines)")->required();
  AddTargetFlags(*cmd, *f);
  cmd->add_flag("--dry-run", f->options.dry_run,
                "check the golden rows (or scenarios) and the target's requests, and print the "
                "calls a run would make: the target's, and an LLM --user-judge's with its tokens "
                "and cost estimated (at most: every scenario to its max_turns); call nothing, "
                "write nothing");
  cmd->callback([f, exit_code] {
    if (Status s = f->Finish(); !s.ok()) {
      std::fprintf(stderr, "tala run: %s\n", s.message().c_str());
      *exit_code = 2;
      return;
    }
    RunReport report;
    *exit_code = CallTarget(f->options, f->quiet, "tala run", &report);
    if (*exit_code == 0 && report.rows_failed > 0) *exit_code = 1;
  });
}

}  // namespace tala::cli
