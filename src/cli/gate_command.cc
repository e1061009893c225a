// tala gate RESULTS: pass/fail gates for CI jobs. Exit 0 pass, 1 a gate failed, 2 usage/input.

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <map>

#include "analysis/intervals.h"
#include "analysis/paired_comparison.h"
#include "cli/commands.h"
#include "io/readers/results_reader.h"
#include "io/reports/junit_report.h"
#include "metrics/registry.h"

namespace tala::cli {

namespace {
struct GateFlags {
  std::string results, baseline, junit;
  std::vector<std::string> min, max_drop;
};

bool LowerIsBetter(const std::string& key) {
  return metrics::DirectionOfKey(key) == Direction::kLowerIsBetter;
}

Result<std::map<std::string, double>> ParseGates(const std::vector<std::string>& items,
                                                 const char* flag) {
  std::map<std::string, double> out;
  for (const std::string& item : items) {
    size_t eq = item.rfind('=');
    char* end = nullptr;
    double v = eq == std::string::npos ? 0 : std::strtod(item.c_str() + eq + 1, &end);
    if (eq == std::string::npos || eq == 0 || end == item.c_str() + eq + 1 || *end != '\0') {
      return InvalidArgument(std::string(flag) + " expects METRIC=NUMBER, got \"" + item + "\"");
    }
    out[item.substr(0, eq)] = v;
  }
  return out;
}

int RunGate(const GateFlags& f) {
  auto mins = ParseGates(f.min, "--min");
  auto drops = ParseGates(f.max_drop, "--max-drop");
  for (const auto* g : {&mins, &drops}) {
    if (!*g) {
      std::fprintf(stderr, "tala gate: %s\n", g->error().message().c_str());
      return 2;
    }
  }
  if (mins->empty() && drops->empty()) {
    std::fprintf(stderr, "tala gate: give at least one --min or --max-drop\n");
    return 2;
  }
  if (!drops->empty() && f.baseline.empty()) {
    std::fprintf(stderr, "tala gate: --max-drop needs --baseline BASE\n");
    return 2;
  }
  auto run = io::ReadResults(f.results);
  if (!run) {
    std::fprintf(stderr, "tala gate: %s\n", run.error().ToString().c_str());
    return 2;
  }
  int failed = 0;
  std::vector<io::JunitCase> cases;
  char line[512];
  for (const auto& [key, bound] : *mins) {
    auto st = analysis::Summarise(io::ColumnOf(*run, key).values);
    if (!st) {
      std::fprintf(stderr, "tala gate: %s has no scored row in %s\n", key.c_str(),
                   f.results.c_str());
      return 2;
    }
    bool lower = LowerIsBetter(key);
    bool pass = lower ? st->mean <= bound : st->mean >= bound;
    failed += pass ? 0 : 1;
    std::snprintf(line, sizeof line, "%s %s %.4f: mean %.4f, 95%% interval [%.4f, %.4f]",
                  key.c_str(), lower ? "<=" : ">=", bound, st->mean, st->ci_low, st->ci_high);
    std::printf("%s  %s\n", pass ? "PASS" : "FAIL", line);
    cases.push_back({key + (lower ? " <= " : " >= ") + fmt::format("{:g}", bound), pass, line});
  }
  if (!drops->empty()) {
    auto base = io::ReadResults(f.baseline);
    if (!base) {
      std::fprintf(stderr, "tala gate: %s\n", base.error().ToString().c_str());
      return 2;
    }
    for (const auto& [key, allowed] : *drops) {
      io::PairedScores pairs = io::PairById(*base, *run, key);
      if (pairs.ids.empty()) {
        std::fprintf(stderr, "tala gate: %s has no row scored in both runs (paired by id)\n",
                     key.c_str());
        return 2;
      }
      auto r = analysis::ComparePaired(pairs.base, pairs.candidate);
      // A drop is a fall, or a rise for lower-is-better metrics. The gate fails only when the
      // whole interval of the drop lies beyond the allowed drop, so judge noise does not flake it.
      bool lower = LowerIsBetter(key);
      double drop_low = lower ? r.ci_low : -r.ci_high;
      double drop_high = lower ? r.ci_high : -r.ci_low;
      bool pass = drop_low <= allowed;
      failed += pass ? 0 : 1;
      std::snprintf(line, sizeof line,
                    "%s drop <= %.4f: drop %.4f, 95%% interval [%.4f, %.4f] over %ld paired rows",
                    key.c_str(), allowed, lower ? r.mean_difference : -r.mean_difference, drop_low,
                    drop_high, r.n);
      std::printf("%s  %s\n", pass ? "PASS" : "FAIL", line);
      cases.push_back({key + " drop <= " + fmt::format("{:g}", allowed), pass, line});
    }
  }
  if (!f.junit.empty()) {
    std::string xml = io::RenderJunit("tala gate: " + f.results, cases);
    std::FILE* out = f.junit == "-" ? stdout : std::fopen(f.junit.c_str(), "wb");
    if (out == nullptr || std::fwrite(xml.data(), 1, xml.size(), out) != xml.size()) {
      std::fprintf(stderr, "tala gate: cannot write %s\n", f.junit.c_str());
      return 2;
    }
    if (out != stdout) std::fclose(out);
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
  cmd->add_option("RESULTS", f->results, "results file to gate")->required();
  cmd->add_option("--min", f->min, "METRIC=VALUE (repeatable)");
  cmd->add_option("--baseline", f->baseline, "results file of the baseline run");
  cmd->add_option("--max-drop", f->max_drop, "METRIC=DROP allowed against --baseline (repeatable)");
  cmd->add_option("--junit", f->junit,
                  "also write JUnit XML, one test case per gate (- for stdout)");
  cmd->callback([f, exit_code] { *exit_code = RunGate(*f); });
}

}  // namespace tala::cli
