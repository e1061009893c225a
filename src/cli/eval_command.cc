// tala eval DATA: scores every row, writes the results file, prints the summary table.

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <tuple>

#include "cli/commands.h"
#include "cli/config_file.h"
#include "cli/help_format.h"
#include "cli/llm_flags.h"
#include "cli/progress_line.h"
#include "cli/stop_signals.h"
#include "fs/output_paths.h"
#include "io/readers/results_reader.h"
#include "io/reports/console_summary.h"
#include "io/reports/markdown_report.h"
#include "tala/align.h"
#include "tala/evaluate.h"

namespace tala::cli {

namespace {

struct EvalFlags {
  EvalOptions options;
  std::string on_error = "fail";
  std::string config;
  std::string seed = "42";
  std::string markdown, csv, junit, html;
  std::vector<std::string> thresholds;
  std::string diagnosis_baseline;
  double diagnosis_margin = 0.1;
  std::string shard, shard_by = "range";
  std::vector<std::string> min, max_drop;  // --sequential's gates
  std::string judge_profile;               // tala align's profile
  bool json = false;
  bool quiet = false;
  bool no_progress = false;
};

void PrintErrors(const RunSummary& partial) {
  for (const Status& e : partial.errors) std::fprintf(stderr, "%s\n", e.ToString().c_str());
}

Status ParseFlags(EvalFlags& flags) {
  EvalOptions& o = flags.options;
  if (!flags.shard.empty()) {
    TALA_ASSIGN_OR_RETURN(o.shard, ParseShard(flags.shard, flags.shard_by));
  }
  o.on_error = flags.on_error == "skip" ? OnError::kSkip : OnError::kFail;
  if (flags.seed == "none") {
    o.llm.seed.reset();
  } else {
    try {
      o.llm.seed = std::stoll(flags.seed);
    } catch (...) {
      return InvalidArgument("--seed: expected an integer or none, got \"" + flags.seed + "\"");
    }
  }
  for (auto [items, flag, gates] : {std::tuple{&flags.min, "--min", &o.sequential.min},
                                    {&flags.max_drop, "--max-drop", &o.sequential.max_drop}}) {
    TALA_ASSIGN_OR_RETURN(*gates, ParseGates(*items, flag));
  }
  if (!o.sequential.on && (!o.sequential.min.empty() || !o.sequential.max_drop.empty() ||
                           o.sequential.target_width > 0)) {
    return InvalidArgument(
        "--min, --max-drop and --target-width decide when --sequential stops judging; gate a "
        "finished run with tala gate");
  }
  for (const std::string& t : flags.thresholds) {
    size_t eq = t.find('=');
    double v = -1;
    try {
      if (eq != std::string::npos) v = std::stod(t.substr(eq + 1));
    } catch (...) {
    }
    if (eq == std::string::npos || v < 0 || v > 1) {
      return InvalidArgument("--diagnose: expected METRIC=THRESHOLD in [0, 1], got \"" + t + "\"");
    }
    o.diagnosis_thresholds[t.substr(0, eq)] = v;
  }
  if (!flags.judge_profile.empty()) {
    // The profile's thresholds, under any --diagnose given by hand.
    TALA_ASSIGN_OR_RETURN(o.judge_profile,
                          ApplyJudgeProfile(flags.judge_profile, o.diagnosis_thresholds,
                                            &o.llm.labelled_examples, &o.offline_blend));
  }
  if (!flags.diagnosis_baseline.empty()) {
    // Relative to a baseline run: a row fails a stage when it is `margin` below the baseline's
    // mean for that metric. Thresholds given with --diagnose win.
    auto base = io::ReadResults(flags.diagnosis_baseline);
    if (!base) return base.error();
    for (const std::string& key : base->metric_keys) {
      io::MetricColumn column = io::ColumnOf(*base, key);
      if (column.values.empty()) continue;
      double threshold = std::max(0.0, column.mean() - flags.diagnosis_margin);
      o.diagnosis_thresholds.emplace(key, threshold);
    }
  }
  return OkStatus();
}

int WriteReports(const EvalFlags& flags, const RunSummary& summary) {
  if (flags.markdown.empty() && flags.csv.empty() && flags.junit.empty() && flags.html.empty()) {
    return 0;
  }
  if (summary.results_path == "-") {
    std::fprintf(stderr, "tala eval: reports need a results file (-o FILE), not stdout\n");
    return 2;
  }
  return RenderReports(summary.results_path, {flags.markdown, flags.csv, flags.junit, flags.html},
                       "tala eval");
}

// Every output against every input and each other, before anything is scored or written.
Status CheckPaths(const EvalFlags& flags) {
  const EvalOptions& o = flags.options;
  if (o.dry_run) return OkStatus();
  std::vector<fs::NamedPath> inputs = {{"DATA", o.dataset},
                                       {"--labels", o.labels},
                                       {"--diagnose-baseline", flags.diagnosis_baseline}};
  if (o.judge.find(':') != std::string::npos && o.llm.cache != "off") {
    inputs.push_back({"--cache", o.llm.cache});
  }
  const bool reports =
      !flags.markdown.empty() || !flags.csv.empty() || !flags.junit.empty() || !flags.html.empty();
  struct stat st;
  if (reports && o.out != "-" && ::stat(o.out.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return InvalidArgument("reports read the rows back from the results file, and -o " + o.out +
                           " keeps none: give -o a file");
  }
  return fs::CheckOutputsDistinct(inputs, {{"-o", o.out},
                                           {"--markdown", flags.markdown},
                                           {"--csv", flags.csv},
                                           {"--junit", flags.junit},
                                           {"--html", flags.html}});
}

int RunEval(EvalFlags& flags) {
  if (Status s = ParseFlags(flags); !s.ok()) {
    std::fprintf(stderr, "tala eval: %s\n", s.ToString().c_str());
    return 2;
  }
  if (Status s = CheckPaths(flags); !s.ok()) {
    std::fprintf(stderr, "tala eval: %s\n", s.message().c_str());
    return 2;
  }
  const bool tty = isatty(STDERR_FILENO) != 0;
  ProgressLine line(tty);
  if (!flags.quiet && !flags.no_progress && !flags.options.dry_run) {
    flags.options.progress = [&line](const Progress& p) { line.Update(p); };
  }
  RunSummary partial;
  std::optional<Result<RunSummary>> ran;
  int stop_code = 130;
  {
    StopOnSignals signals;
    flags.options.stop = signals.flag();
    ran.emplace(Evaluate(flags.options, &partial));
    stop_code = signals.exit_code();
  }
  auto& summary = *ran;
  line.Finish();
  for (const std::string& w : partial.warnings)
    std::fprintf(stderr, "tala eval: warning: %s\n", w.c_str());
  if (!summary) {
    PrintErrors(partial);
    std::fprintf(stderr, "tala eval: %s\n", summary.error().ToString().c_str());
    if (flags.options.shard.active()) {
      std::fprintf(stderr, "tala eval: the shard wrote nothing; run it again\n");
    } else if (partial.rows_scored > 0) {
      std::string failed = partial.rows_failed > 0
                               ? " (" + std::to_string(partial.rows_failed) +
                                     " of them with judge failures, which --resume scores again)"
                               : "";
      std::fprintf(stderr, "tala eval: %lld rows were written to %s%s%s\n",
                   static_cast<long long>(partial.rows_scored), partial.results_path.c_str(),
                   failed.c_str(), partial.results_path == "-" ? "" : "; finish with --resume");
    }
    if (summary.error().code() == ErrorCode::kCancelled) return stop_code;
    return ExitCodeFor(summary.error());
  }
  if (summary->rows_skipped > 0) {
    PrintErrors(*summary);
    std::fprintf(stderr, "tala eval: skipped %lld invalid rows\n",
                 static_cast<long long>(summary->rows_skipped));
  }
  // With the results on stdout (-o -), the summary goes to stderr so the rows can be piped.
  std::FILE* out = summary->results_path == "-" ? stderr : stdout;
  if (flags.json) {
    std::fprintf(out, "%s\n", io::FormatSummaryJson(*summary).c_str());
  } else if (flags.options.dry_run) {
    std::fprintf(out, "%s", io::FormatEstimateTable(*summary).c_str());
    return 0;
  } else {
    std::fprintf(out, "%s", io::FormatSummaryTable(*summary, flags.quiet).c_str());
    if (summary->results_path != "-" && !flags.quiet) {
      std::fprintf(out, "\nper-row results: %s\n", summary->results_path.c_str());
    }
  }
  if (flags.options.dry_run) return 0;
  if (int rc = WriteReports(flags, *summary); rc != 0) return rc;
  return summary->rows_failed > 0 ? 3 : 0;
}

}  // namespace

void AddEvalCommand(CLI::App& app, int* exit_code, const EvalOptions& defaults) {
  auto flags = std::make_shared<EvalFlags>();
  flags->options = defaults;
  if (defaults.llm.seed) flags->seed = std::to_string(*defaults.llm.seed);
  EvalOptions& o = flags->options;
  CLI::App* cmd = app.add_subcommand(
      "eval",
      "Score every row of a dataset with the chosen metrics and judge; write per-row "
      "results (JSON Lines, flushed row by row) and print a summary. Exit 0 when the run "
      "completed, 2 on usage or input errors, 3 when the judge failed on some rows, 130 when "
      "stopped by Ctrl-C and 143 by SIGTERM (rows done are kept; finish with --resume). Every "
      "option can also be "
      "set in tala.toml (same name, underscores) or a TALA_* variable.");
  cmd->add_option("DATA", o.dataset, "dataset file (.jsonl, .json, .csv) or - for stdin")
      ->required();
  cmd->add_option(
         "--metrics,-m", o.metrics,
         "comma-separated metrics, options as name:key=value "
         "(e.g. faithfulness,factual_correctness:mode=precision); quote a value "
         "that holds commas (aspect_critic:name=rude,definition=\"Is it rude, or "
         "curt?\"); [metrics.NAME] tables in tala.toml define more. Group names "
         "select several: core (the default: faithfulness, response_relevancy, "
         "context_precision, context_recall, and the id-based pair when contexts have "
         "ids), all (every metric the dataset's fields allow), retrieval, generation, "
         "reference, ir, strings, agents, criteria, sql, summaries, conversation (the per-turn "
         "metrics; the default for conversations whose turns carry passages) (e.g. core,strings; "
         "see `tala metrics`)")
      ->envname("TALA_METRICS");
  cmd->add_option("--k", o.ks,
                  "cut-offs for hit_rate, precision_at_k, recall_at_k and ndcg, e.g. 1,3,5,10 "
                  "(default: the whole ranking)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_option("--judge,-j", o.judge,
                  "judge: offline, replay, openai:MODEL or anthropic:MODEL (see `tala judges`)")
      ->capture_default_str()
      ->envname("TALA_JUDGE");
  cmd->add_option("--out,-o", o.out, "results file (JSON Lines), - for stdout")
      ->capture_default_str()
      ->envname("TALA_OUT");
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
  cmd->add_option("--diagnose", flags->thresholds,
                  "per-metric diagnosis threshold, METRIC=VALUE (repeatable), e.g. "
                  "context_recall=0.6");
  cmd->add_option("--diagnose-baseline", flags->diagnosis_baseline,
                  "thresholds relative to a baseline results file: a row fails a stage when "
                  "its metric is --diagnose-margin below the baseline's mean");
  cmd->add_option("--diagnose-margin", flags->diagnosis_margin,
                  "margin below the baseline's mean for --diagnose-baseline")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--judge-profile", flags->judge_profile,
                  "a judge profile from tala align: each metric diagnosed with the threshold "
                  "fitted to your people's labels (recorded in the manifest); an LLM judge also "
                  "sees the profile's labelled examples nearest each row (tala align --examples)");
  cmd->add_option("--labels", o.labels,
                  "human labels (tala review's labels.jsonl): the summary adds each labelled "
                  "metric's prediction-powered mean, corrected for the judge's bias");
  cmd->add_flag("--overwrite", o.overwrite,
                "replace an existing -o file even when it holds an LLM judge's verdicts or is not "
                "a tala results file (without it such a file is refused)");
  cmd->add_flag("--resume", o.resume,
                "keep the rows already in the results file and score only the others (a run "
                "stopped at 90% finishes from 90%)");
  cmd->add_flag("--dry-run", o.dry_run,
                "estimate model calls, tokens and cost (and cache hits) without calling or "
                "writing anything");
  cmd->add_option("--threads", o.threads,
                  "offline judge: judge rows on N threads at once, each with its own judge "
                  "(default 0: one per core); results are written in input order, identical "
                  "whatever N")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--repeats", o.repeats,
                  "score the dataset R times (repeats bypass the judge cache) and report each "
                  "metric's run-to-run standard deviation and a suggested gate (mean - 2 sd)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_option(
      "--shard", flags->shard,
      "score one part of the dataset, INDEX/COUNT counting from 0 (0/4 ... 3/4), "
      "for several processes or machines; the results file appears only when the "
      "shard is done, with RESULTS.shard.json (and .shard.rows) beside it; `tala merge` joins the "
      "parts into the single run's results and summary");
  cmd->add_option("--shard-by", flags->shard_by,
                  "range: consecutive parts (a JSON Lines file is split by bytes, so each shard "
                  "reads only its part); hash: by a hash of each row's id; partition: DATA is "
                  "already this shard's part (one file of many)")
      ->capture_default_str()
      ->check(CLI::IsMember({"range", "hash", "partition"}));
  cmd->add_flag("--sequential", o.sequential.on,
                "judge rows in a seeded random order and stop as soon as every --min / --max-drop "
                "gate is decided (an anytime-valid confidence sequence at --alpha), or, with "
                "--target-width, once every interval is that narrow; the rows left are listed in "
                "OUT.not-judged.jsonl");
  cmd->add_option("--min", flags->min,
                  "with --sequential: METRIC=VALUE gate on the mean (repeatable)");
  cmd->add_option("--max-drop", flags->max_drop,
                  "with --sequential: METRIC=DROP gate on the paired drop against --baseline "
                  "(repeatable)");
  cmd->add_option("--baseline", o.sequential.baseline,
                  "with --sequential and --max-drop: the baseline's results file");
  cmd->add_option("--target-width", o.sequential.target_width,
                  "with --sequential: also stop once each gated metric's interval (every "
                  "metric's, without gates) is at most this wide")
      ->check(CLI::Range(0.0, 2.0));
  cmd->add_option("--alpha", o.sequential.alpha,
                  "with --sequential: the chance, over the whole run, that any gate is decided "
                  "wrongly")
      ->capture_default_str()
      ->check(CLI::Range(0.0001, 0.5));
  cmd->add_option("--order-seed", o.sequential.seed,
                  "with --sequential: the seed of the rows' random order")
      ->capture_default_str();
  cmd->add_option("--markdown", flags->markdown, "also write the Markdown summary here");
  cmd->add_option("--csv", flags->csv, "also write the per-row CSV here");
  cmd->add_option("--html", flags->html, "also write the HTML report here");
  cmd->add_option("--junit", flags->junit, "also write JUnit XML (one test case per metric) here");
  cmd->add_option("--config", flags->config,
                  "config file (default: $TALA_CONFIG, else ./tala.toml when present)");
  AddLlmOptions(cmd, flags->options.llm, &flags->seed, /*for_metrics=*/true);
  cmd->add_flag("--json", flags->json, "print the summary as JSON");
  cmd->add_flag("--quiet,-q", flags->quiet,
                "no progress on stderr, and a short summary: the diagnosis verdict and the "
                "metric lines");
  cmd->add_flag("--no-progress", flags->no_progress,
                "no progress on stderr; the summary is printed whole (for logs)");
  // --help lists the flags by what a reader looks for; the LLM judge's have their own group.
  GroupOptions(
      cmd, "What to score",
      {"--metrics", "--k", "--judge", "--diagnosis-threshold", "--diagnose", "--diagnose-baseline",
       "--diagnose-margin", "--judge-profile", "--labels", "--repeats", "--threads"});
  GroupOptions(cmd, "Input and output",
               {"--out", "--format", "--on-error", "--overwrite", "--resume", "--markdown", "--csv",
                "--html", "--junit", "--json", "--quiet", "--no-progress", "--config"});
  GroupOptions(cmd, "Planning and sharding", {"--dry-run", "--shard", "--shard-by"});
  GroupOptions(cmd, "Stopping when it is decided",
               {"--sequential", "--min", "--max-drop", "--baseline", "--target-width", "--alpha",
                "--order-seed"});
  cmd->footer(
      "--html keeps every row in memory to embed it (about 7 KB a row): for millions of rows,\n"
      "write the results first and render a sample with tala report.\n\n"
      "Examples:\n"
      "  tala eval data.jsonl -o results.jsonl --html report.html\n"
      "  OPENAI_API_KEY=... tala eval data.jsonl --judge openai:gpt-4o-mini -o llm.jsonl --resume");
  cmd->callback([flags, exit_code] { *exit_code = RunEval(*flags); });
}

}  // namespace tala::cli
