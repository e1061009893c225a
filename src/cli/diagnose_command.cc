// tala diagnose GOLDEN --target T: the cause of each failing answer, found by calling the app
// again with the gold passages, its own passages reversed, and none (tala/diagnose.h).

#include <unistd.h>

#include <cstdio>
#include <optional>
#include <sstream>

#include "cli/commands.h"
#include "cli/help_format.h"
#include "cli/progress_line.h"
#include "cli/run_flags.h"
#include "cli/stop_signals.h"
#include "tala/diagnose.h"

namespace tala::cli {

namespace {
struct DiagnoseFlags {
  RunFlags run;
  DiagnoseOptions options;
  std::string conditions = "gold,reordered,none";
  bool json = false;
};

std::vector<std::string> SplitList(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    while (!item.empty() && item.front() == ' ') item.erase(0, 1);
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

int RunDiagnose(DiagnoseFlags& f) {
  if (Status s = f.run.Finish(); !s.ok()) {
    std::fprintf(stderr, "tala diagnose: %s\n", s.message().c_str());
    return 2;
  }
  DiagnoseOptions o = f.options;
  o.run = f.run.options;
  o.conditions = SplitList(f.conditions);
  o.eval.llm.estimate_only = o.dry_run;
  const bool quiet = f.run.quiet;
  ProgressLine line(isatty(STDERR_FILENO) != 0);
  if (!quiet) {
    o.step = [&line](const std::string& what) {
      line.Finish();
      std::fprintf(stderr, "tala diagnose: %s\n", what.c_str());
    };
    o.run.progress = [&line](const Progress& p) { line.Update(p); };
    o.eval.progress = [&line](const Progress& p) { line.Update(p); };
  }
  std::optional<Result<DiagnoseReport>> done;
  int stop_code = 130;
  {
    StopOnSignals signals;
    o.run.stop = signals.flag();
    o.eval.stop = signals.flag();
    done.emplace(DiagnoseByExperiment(o));
    stop_code = signals.exit_code();
  }
  line.Finish();
  auto& report = *done;
  if (!report) {
    PrintError("tala diagnose", report.error());
    if (report.error().code() == ErrorCode::kCancelled) return stop_code;
    return ExitCodeFor(report.error());
  }
  const std::string text = f.json ? DiagnoseJson(*report) : FormatDiagnoseReport(*report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}
}  // namespace

void AddDiagnoseCommand(CLI::App& app, int* exit_code, const EvalOptions& eval_defaults,
                        const RunOptions& run_defaults) {
  auto f = std::make_shared<DiagnoseFlags>();
  f->run.options = run_defaults;
  f->options.eval = eval_defaults;
  CLI::App* cmd = app.add_subcommand(
      "diagnose",
      "Find what caused each wrong answer by experiment, not by inference from the scores: call "
      "the app for every golden row and score its answers (as tala ci does), then, for each row "
      "whose answer is not right, call it again given passages: the gold ones (the row's "
      "reference_contexts, or its reference_context_ids' texts from --docs or from the chunks "
      "the app returned), its own in reverse order, and none. Each row's cause: ranking "
      "(reordering makes it right), retriever (the gold passages make it right), parametric "
      "(still wrong, the same answer with no passage: it answers from memory), generator "
      "(still wrong with the gold passages), unknown (the conditions disagree, or no gold "
      "passages). At most 3 extra calls a row. The app must take passages: HTTP targets get "
      "\"contexts\" in the default request or {{contexts}} / {{contexts_json}} in a template, "
      "exec targets a \"contexts\" field in their line; a target that cannot is said once and "
      "the causes are read from the scores. Writes answers, results (each diagnosed row with "
      "its cause and interventions), the experiments and diagnose.json into --out-dir. Exit 0 "
      "done, 2 usage or input error, 3 the target or judge failed.");
  cmd->add_option("GOLDEN", f->run.options.golden,
                  "golden questions (JSON Lines): user_input, reference, and reference_contexts "
                  "or reference_context_ids for the gold condition")
      ->required();
  AddTargetFlags(*cmd, f->run);
  cmd->add_option("--docs", f->options.docs,
                  "knowledge base, JSON Lines of {\"id\", \"text\"}: the gold passages of rows "
                  "that name theirs by reference_context_ids (default: the chunks the app "
                  "returned, by id)");
  cmd->add_option("--conditions", f->conditions,
                  "the experiments, comma-separated: gold, reordered, none")
      ->capture_default_str();
  cmd->add_flag("--all-rows", f->options.all_rows,
                "experiment on every answered row, not only those whose answer is not right");
  cmd->add_option("--sample", f->options.sample,
                  "experiment on a seeded sample of this many of the rows (0: all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", f->options.seed, "seed of --sample")->capture_default_str();
  cmd->add_option("--threshold", f->options.threshold,
                  "an answer is right when it states at least this share of the reference's "
                  "claims and its faithfulness is at least this (without a reference: "
                  "faithfulness and response_relevancy)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--judge", f->options.eval.judge, "judge (default offline)")
      ->capture_default_str();
  cmd->add_option("--metrics", f->options.eval.metrics,
                  "metrics to score the first answers with, as tala eval --metrics (default: "
                  "the core metrics); the verdict's own are always added");
  cmd->add_option("--out-dir", f->options.out_dir, "where the files go")->capture_default_str();
  cmd->add_flag("--json", f->json,
                "print {\"causes\": {...}, \"rows\": [...], ...} instead of the summary");
  cmd->add_flag("--dry-run", f->options.dry_run,
                "count the calls to the app and the judge's calls; call nothing, write nothing");
  GroupOptions(cmd, "Experiments",
               {"--docs", "--conditions", "--all-rows", "--sample", "--seed", "--threshold",
                "--judge", "--metrics", "--out-dir", "--json", "--dry-run"});
  cmd->callback([f, exit_code] { *exit_code = RunDiagnose(*f); });
}

}  // namespace tala::cli
