// tala ci GOLDEN --target T [--baseline RESULTS]: run -> eval -> gate -> reports in one step, and
// the run added to the history when [history] names a store.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <tuple>

#include "cli/commands.h"
#include "cli/help_format.h"
#include "cli/run_flags.h"
#include "cli/stop_signals.h"
#include "cli/target_config.h"
#include "fs/atomic_file.h"
#include "fs/output_paths.h"
#include "io/readers/results_reader.h"
#include "io/reports/junit_report.h"
#include "metrics/registry.h"
#include "tala/align.h"
#include "tala/diagnose.h"
#include "tala/gate.h"

namespace tala::cli {

namespace {
struct CiFlags {
  RunFlags run;
  CiSettings ci;
  EvalOptions eval;
  std::string baseline;
  std::vector<std::string> min, max_drop;
  int worst = 5;
  bool sequential = false;    // --sequential: stop judging once every gate is decided
  bool diagnose = false;      // --diagnose: tala diagnose's experiments on the failing answers
  std::string docs;           // --docs for them
  std::string judge_profile;  // tala align's thresholds
};

// The metric's worst rows (lowest, or highest for lower-is-better metrics), as Markdown items.
std::string WorstRows(const io::ResultsFile& results, const std::string& metric, int count) {
  std::vector<std::pair<double, const io::ResultRow*>> scored;
  const bool lower = io::DirectionIn(results, metric) == Direction::kLowerIsBetter;
  for (const io::ResultRow& row : results.rows) {
    auto it = row.scores.find(metric);
    // A row at the best value is no example of the failure (P7: perfect rows padded the list).
    if (it != row.scores.end() && it->second && *it->second != (lower ? 0.0 : 1.0)) {
      scored.emplace_back(*it->second, &row);
    }
  }
  std::stable_sort(scored.begin(), scored.end(), [lower](const auto& a, const auto& b) {
    return lower ? a.first > b.first : a.first < b.first;
  });
  std::string out;
  for (size_t i = 0; i < scored.size() && static_cast<int>(i) < count; ++i) {
    const io::ResultRow& r = *scored[i].second;
    char line[64];
    std::snprintf(line, sizeof line, "%.4f", scored[i].first);
    // The question and the metric's reason, as the CLI summary shows them (N3, N8).
    const io::QuestionAndReason why = io::QuestionAndReasonOf(r, metric);
    out += "  - `" + r.id + "`: " + line + (r.diagnosis.empty() ? "" : " (" + r.diagnosis + ")");
    if (!why.question.empty()) out += ": \"" + why.question + "\"";
    if (!why.reason.empty()) out += " — " + why.reason;
    out += "\n";
  }
  return out;
}

bool WriteText(const std::string& path, const std::string& text) {
  return fs::WriteFileAtomically(path, text).ok();
}

int RunCi(CiFlags& f) {
  if (Status s = f.run.Finish(); !s.ok()) {
    std::fprintf(stderr, "tala ci: %s\n", s.message().c_str());
    return 2;
  }
  // Flag gates add to (and override) the [ci] tables' gates.
  for (auto [items, flag, gates] :
       {std::tuple{&f.min, "--min", &f.ci.min}, {&f.max_drop, "--max-drop", &f.ci.max_drop}}) {
    auto parsed = ParseGates(*items, flag);
    if (!parsed) {
      std::fprintf(stderr, "tala ci: %s\n", parsed.error().message().c_str());
      return 2;
    }
    for (const auto& [metric, value] : *parsed) (*gates)[metric] = value;
  }
  if (!f.ci.max_drop.empty() && f.baseline.empty()) {
    std::fprintf(stderr, "tala ci: max_drop gates need --baseline RESULTS\n");
    return 2;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(f.ci.out_dir, ec);
  const std::string dir = f.ci.out_dir + "/";
  // Each file may be placed by its own [ci] key; by default they all go in out_dir.
  auto place = [&dir](const std::string& set, const char* name) {
    return set.empty() ? dir + name : set;
  };
  const std::string summary_md = place(f.ci.summary, "summary.md");
  const std::string junit_xml = place(f.ci.junit, "junit.xml");
  const std::string report_html = place(f.ci.html, "report.html");
  // 1. Call the pipeline under test.
  RunOptions run = f.run.options;
  run.out = place(f.ci.dataset, "dataset.jsonl");
  if (Status s = tala::fs::CheckOutputsDistinct(
          {{"GOLDEN", run.golden}, {"--simulate", run.simulate}, {"--baseline", f.baseline}},
          {{"the dataset", run.out},
           {"the results", place(f.ci.results, "results.jsonl")},
           {"summary.md", summary_md},
           {"junit.xml", junit_xml},
           {"report.html", report_html}});
      !s.ok()) {
    PrintError("tala ci", s);
    return 2;
  }
  RunReport target;
  const std::string& source = run.simulate.empty() ? run.golden : run.simulate;
  std::fprintf(stderr, "tala ci: calling %s for %s\n", run.target.target.c_str(), source.c_str());
  if (int rc = CallTarget(run, f.run.quiet, "tala ci", &target); rc != 0) {
    return rc == 2 || rc == 130 || rc == 143 ? rc : 3;
  }
  // 2. Score what it answered. Rows the target failed have no response: skipped and counted.
  EvalOptions eval = f.eval;
  eval.dataset = run.out;
  eval.out = place(f.ci.results, "results.jsonl");
  eval.on_error = OnError::kSkip;
  eval.overwrite = true;  // each CI run makes its out-dir anew
  if (!f.ci.metrics.empty()) eval.metrics = f.ci.metrics;
  if (!f.ci.judge.empty()) eval.judge = f.ci.judge;
  if (!f.judge_profile.empty()) {
    auto digest = ApplyJudgeProfile(f.judge_profile, eval.diagnosis_thresholds,
                                    &eval.llm.labelled_examples, &eval.offline_blend);
    if (!digest) {
      PrintError("tala ci", digest.error());
      return 2;
    }
    eval.judge_profile = *digest;
  }
  if (f.sequential) {
    eval.sequential.on = true;
    eval.sequential.min = f.ci.min;
    eval.sequential.max_drop = f.ci.max_drop;
    eval.sequential.baseline = f.baseline;
  }
  std::optional<Result<RunSummary>> scored;
  int stop_code = 130;
  {
    StopOnSignals signals;
    eval.stop = signals.flag();
    scored.emplace(Evaluate(eval));
    stop_code = signals.exit_code();
  }
  auto& summary = *scored;
  // The target's own gate: rows it failed, against [ci] max_target_errors.
  const GateCheck target_check = {
      "target errors <= " + std::to_string(f.ci.max_target_errors),
      target.rows_failed <= f.ci.max_target_errors,
      std::to_string(target.rows_failed) + " of " + std::to_string(target.rows_read) +
          " rows failed at the target" +
          (target.error_reasons.empty() ? std::string()
                                        : " (" + target.error_reasons.front().first + ")")};
  if (!summary) {
    std::fprintf(stderr, "tala ci: scoring: %s\n", summary.error().ToString().c_str());
    if (summary.error().code() == ErrorCode::kCancelled) return stop_code;
    // The job still gets its summary and JUnit: what the target did, and why nothing was scored.
    std::string md =
        "# tala ci\n\n**FAILED**: nothing could be scored: " + summary.error().ToString() +
        "\n\n- " + (target_check.pass ? "PASS " : "**FAIL** ") + target_check.detail +
        "\n\n## The target\n\n```\n" + FormatRunReport(target) + "```\n";
    std::vector<io::JunitCase> cases = {{target_check.name, target_check.pass, target_check.detail},
                                        {"scoring", false, summary.error().ToString()}};
    if (!WriteText(summary_md, md) ||
        !WriteText(junit_xml,
                   io::RenderJunit("tala ci: " + (run.simulate.empty() ? run.golden : run.simulate),
                                   cases))) {
      std::fprintf(stderr, "tala ci: cannot write the reports in %s\n", f.ci.out_dir.c_str());
      return 2;
    }
    std::fprintf(stderr, "tala ci: wrote %s and %s\n", summary_md.c_str(), junit_xml.c_str());
    return target_check.pass ? 3 : 1;
  }
  // -q: the verdict and the metric lines, as tala eval -q prints them (N2).
  std::string table = FormatSummary(*summary, /*brief=*/f.run.quiet);
  std::fwrite(table.data(), 1, table.size(), stdout);
  // 3. Gate.
  std::vector<GateCheck> checks;
  if (!f.ci.min.empty() || !f.ci.max_drop.empty()) {
    auto gated = Gate(
        {.results = eval.out, .min = f.ci.min, .baseline = f.baseline, .max_drop = f.ci.max_drop});
    if (!gated) {
      std::fprintf(stderr, "tala ci: %s\n", gated.error().ToString().c_str());
      return 2;
    }
    checks = std::move(*gated);
  }
  checks.push_back(target_check);
  // 4. Reports: the job summary and the page lead with the verdict, then the usual report.
  std::vector<ReportGate> verdict;
  for (const GateCheck& c : checks) verdict.push_back({c.pass, c.detail});
  auto written = WriteReports(
      eval.out, {.markdown = summary_md, .junit = "", .html = report_html, .gates = verdict});
  if (!written) {
    std::fprintf(stderr, "tala ci: %s\n", written.error().ToString().c_str());
    return 2;
  }
  auto results = io::ReadResults(eval.out, io::EmptyResults::kError, io::RawLines::kKeep);
  int failed = 0;
  std::string md = "# tala ci\n\n";
  // 5. History ([history] store): the run is remembered whatever the gates say. A store that
  // cannot take it is reported, and does not fail the job: the gates decide that.
  std::string history_line;
  if (!f.ci.history.store.empty()) {
    std::string said;
    Status s = AddToHistory(f.ci.history, eval.out, report_html, &said);
    history_line = s.ok() ? said : "could not add the run to the history: " + s.ToString();
    std::fprintf(stderr, "tala ci: %s\n", history_line.c_str());
  }
  std::vector<io::JunitCase> cases;
  for (const GateCheck& c : checks) failed += c.pass ? 0 : 1;
  md += failed ? "**FAILED**: " + std::to_string(failed) + " of " + std::to_string(checks.size()) +
                     " gates\n\n"
               : "**PASSED**: all " + std::to_string(checks.size()) + " gates\n\n";
  for (const GateCheck& c : checks) {
    md += std::string("- ") + (c.pass ? "PASS" : "**FAIL**") + " " + c.detail + "\n";
    std::string metric = c.name.substr(0, c.name.find(' '));
    if (!c.pass && results && metric != "target") {
      md += "  worst rows for " + metric + ":\n" + WorstRows(*results, metric, f.worst);
    }
    cases.push_back({c.name, c.pass, c.detail});
    std::printf("%s  %s\n", c.pass ? "PASS" : "FAIL", c.detail.c_str());
  }
  if (!history_line.empty()) md += "\nHistory: " + history_line + "\n";
  // --sequential: how many rows decided the gates, whatever -q says (the rest were not judged).
  for (const std::string& note : summary->notes) {
    if (note.rfind("sequential:", 0) != 0) continue;
    md += "\n" + note + "\n";
    if (f.run.quiet) std::printf("%s\n", note.c_str());
  }
  // 6. --diagnose: each failing answer's cause, by calling the app again given passages.
  if (f.diagnose) {
    DiagnoseOptions d;
    d.run = run;
    d.eval = eval;
    d.eval.metrics = f.ci.metrics;
    d.answers = run.out;
    d.docs = f.docs;
    d.out_dir = dir + "diagnose";
    if (!f.run.quiet) {
      d.step = [](const std::string& what) { std::fprintf(stderr, "tala ci: %s\n", what.c_str()); };
    }
    StopOnSignals signals;
    d.run.stop = d.eval.stop = signals.flag();
    auto diagnosed = DiagnoseByExperiment(d);
    if (!diagnosed) {
      std::fprintf(stderr, "tala ci: --diagnose: %s\n", diagnosed.error().ToString().c_str());
      if (diagnosed.error().code() == ErrorCode::kCancelled) return signals.exit_code();
      md += "\n## Causes by experiment\n\nnot found: " + diagnosed.error().ToString() + "\n";
    } else {
      const std::string text = FormatDiagnoseReport(*diagnosed);
      std::fwrite(text.data(), 1, text.size(), stdout);
      md += "\n## Causes by experiment (tala diagnose)\n\n```\n" + text + "```\n";
    }
  }
  // Then the report, which leads with the diagnosis (the verdict, the pipeline, the worst rows),
  // and the target's run last.
  std::ifstream report(summary_md);
  std::stringstream body;
  body << "\n"
       << report.rdbuf() << "\n## The target\n\n```\n"
       << FormatRunReport(target) << "```\n";
  report.close();
  if (!WriteText(summary_md, md + body.str()) ||
      !WriteText(junit_xml,
                 io::RenderJunit("tala ci: " + (run.simulate.empty() ? run.golden : run.simulate),
                                 cases))) {
    std::fprintf(stderr, "tala ci: cannot write the reports in %s\n", f.ci.out_dir.c_str());
    return 2;
  }
  std::fprintf(stderr, "tala ci: wrote %s, %s, %s, %s, %s\n", run.out.c_str(), eval.out.c_str(),
               summary_md.c_str(), junit_xml.c_str(), report_html.c_str());
  // A GitHub Actions job shows $GITHUB_STEP_SUMMARY on its page.
  if (const char* step = std::getenv("GITHUB_STEP_SUMMARY"); step != nullptr && *step) {
    std::ofstream(step, std::ios::app) << md << body.str();
  }
  return failed > 0 ? 1 : 0;
}
}  // namespace

void AddCiCommand(CLI::App& app, int* exit_code, const EvalOptions& eval_defaults,
                  const RunOptions& run_defaults, const CiSettings& ci_defaults) {
  auto f = std::make_shared<CiFlags>();
  f->run.options = run_defaults;
  f->ci = ci_defaults;
  f->eval = eval_defaults;
  CLI::App* cmd = app.add_subcommand(
      "ci",
      "One CI step: call the pipeline under test for every golden row (tala run), score the "
      "answers (tala eval), gate them (tala gate, with --baseline for drops), and write the "
      "dataset, results, a Markdown job summary naming failing metrics and their worst rows, "
      "JUnit XML and the HTML report into --out-dir; with [history] store set, the run is added to "
      "the history (tala history). Settings come from tala.toml's [target], [ci] and [history] "
      "tables; flags override them. Exit 0 pass, 1 a gate failed (or more target "
      "errors than allowed), 2 usage or input error, 3 the target or judge failed.");
  cmd->add_option("GOLDEN", f->run.options.golden,
                  "golden questions (JSON Lines), or --simulate SCENARIOS instead");
  AddTargetFlags(*cmd, f->run);
  cmd->add_option("--baseline", f->baseline, "results file of the baseline run (drop gates)");
  cmd->add_option("--min", f->min, "METRIC=VALUE gate (repeatable; adds to [ci] min)");
  cmd->add_option("--max-drop", f->max_drop,
                  "METRIC=DROP allowed against --baseline (repeatable; adds to [ci] max_drop)");
  cmd->add_option("--metrics", f->ci.metrics,
                  "metrics or groups to score, as tala eval --metrics (default: [ci] "
                  "metrics, else the core metrics the answers allow)");
  cmd->add_option("--judge", f->ci.judge, "judge (default: [ci] judge, else offline)");
  cmd->add_option("--out-dir", f->ci.out_dir, "where the files go")->capture_default_str();
  cmd->add_option("--max-target-errors", f->ci.max_target_errors,
                  "rows the target may fail before the job fails")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--repeats", f->eval.repeats, "score R times to measure judge noise (LLM judges)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--judge-profile", f->judge_profile,
                  "a judge profile from tala align: diagnose with the thresholds fitted to your "
                  "people's labels; an LLM judge also sees its labelled examples (tala align "
                  "--examples)");
  cmd->add_flag("--sequential", f->sequential,
                "judge the answers in a seeded random order and stop once every gate is decided "
                "by an anytime-valid confidence sequence (as tala eval --sequential); the rows "
                "left are listed in results.jsonl.not-judged.jsonl");
  cmd->add_flag("--diagnose", f->diagnose,
                "after the gates, find each wrong answer's cause by calling the app again with "
                "the gold passages, its own reversed and none (as tala diagnose; files in "
                "OUT-DIR/diagnose, causes in summary.md)");
  cmd->add_option("--docs", f->docs,
                  "with --diagnose: knowledge base (JSON Lines of {\"id\", \"text\"}) for gold "
                  "passages named by reference_context_ids");
  cmd->add_option("--worst", f->worst, "worst rows listed per failing gate")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  GroupOptions(cmd, "Scoring and gates",
               {"--metrics", "--judge", "--repeats", "--min", "--max-drop", "--baseline",
                "--max-target-errors", "--worst", "--out-dir", "--judge-profile", "--sequential",
                "--diagnose", "--docs"});
  cmd->callback([f, exit_code] { *exit_code = RunCi(*f); });
}

}  // namespace tala::cli
