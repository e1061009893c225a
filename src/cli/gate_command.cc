// tala gate RESULTS: pass/fail gates for CI jobs. Exit 0 pass, 1 a gate failed, 2 usage/input.

#include <cstdio>
#include <cstdlib>
#include <map>

#include "cli/commands.h"
#include "fs/atomic_file.h"
#include "fs/output_paths.h"
#include "io/reports/junit_report.h"
#include "tala/gate.h"

namespace tala::cli {

namespace {
struct GateFlags {
  std::string results, baseline, junit;
  std::vector<std::string> min, max_drop;
  int64_t max_failed_rows = 0;
  bool pair_by_order = false;
};

int RunGate(const GateFlags& f) {
  auto mins = ParseGates(f.min, "--min");
  auto drops = ParseGates(f.max_drop, "--max-drop");
  for (const auto* g : {&mins, &drops}) {
    if (!*g) {
      std::fprintf(stderr, "tala gate: %s\n", g->error().message().c_str());
      return 2;
    }
  }
  if (Status s = fs::CheckOutputsDistinct({{"RESULTS", f.results}, {"--baseline", f.baseline}},
                                          {{"--junit", f.junit}});
      !s.ok()) {
    PrintError("tala gate", s);
    return 2;
  }
  auto checks = Gate({.results = f.results,
                      .min = *mins,
                      .baseline = f.baseline,
                      .max_drop = *drops,
                      .max_failed_rows = f.max_failed_rows,
                      .pair_by_order = f.pair_by_order});
  if (!checks) {
    const Status& e = checks.error();
    // A file error names its file in ToString(); the others read best as the bare message.
    PrintError("tala gate", e);
    return 2;
  }
  int failed = 0;
  std::vector<io::JunitCase> cases;
  for (const GateCheck& c : *checks) {
    failed += c.pass ? 0 : 1;
    std::printf("%s  %s\n", c.pass ? "PASS" : "FAIL", c.detail.c_str());
    cases.push_back({c.name, c.pass, c.detail});
  }
  if (!f.junit.empty()) {
    std::string xml = io::RenderJunit("tala gate: " + f.results, cases);
    Status written = f.junit == "-" ? (std::fwrite(xml.data(), 1, xml.size(), stdout) == xml.size()
                                           ? OkStatus()
                                           : IoError("cannot write to standard output"))
                                    : fs::WriteFileAtomically(f.junit, xml);
    if (!written.ok()) {
      PrintError("tala gate", written);
      return 2;
    }
  }
  return failed > 0 ? 1 : 0;
}
}  // namespace

void AddGateCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<GateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "gate",
      "Pass/fail gates on a results file for CI: --min METRIC=V fails when the mean is on "
      "the wrong side of V (direction-aware); with --baseline, --max-drop METRIC=D fails "
      "only when the whole 95% interval of the paired drop exceeds D. Exit 0 pass, 1 fail, "
      "2 usage or input error.");
  cmd->footer(
      "Examples:\n"
      "  tala gate results.jsonl --min faithfulness=0.8 --min context_recall=0.7\n"
      "  tala gate new.jsonl --baseline main.jsonl --max-drop faithfulness=0.05 --junit gate.xml");
  cmd->add_option("RESULTS", f->results, "results file to gate")->required();
  cmd->add_option("--min", f->min, "METRIC=VALUE (repeatable)");
  cmd->add_option("--baseline", f->baseline, "results file of the baseline run");
  cmd->add_option("--max-drop", f->max_drop, "METRIC=DROP allowed against --baseline (repeatable)");
  cmd->add_option("--junit", f->junit,
                  "also write JUnit XML, one test case per gate (- for stdout)");
  cmd->add_option("--max-failed-rows", f->max_failed_rows,
                  "rows with judge failures allowed; more fail the gate (a mean over the rows "
                  "the judge could score says nothing of the others)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--pair-by-order", f->pair_by_order,
                "with --baseline, rows without ids whose questions repeat: pair by position");
  cmd->callback([f, exit_code] { *exit_code = RunGate(*f); });
}

}  // namespace tala::cli
