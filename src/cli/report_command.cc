// tala report RESULTS: re-renders a results file (no judge is run) as Markdown and/or CSV.

#include <cstdio>

#include "cli/commands.h"
#include "tala/report.h"

namespace tala::cli {

namespace {
struct ReportFlags {
  std::string results;
  ReportPaths paths;
};

int RunReport(const ReportFlags& f) {
  if (f.paths.empty()) {
    std::fprintf(stderr,
                 "tala report: give --html FILE, --markdown FILE, --csv FILE and/or --junit FILE "
                 "(- for stdout)\n");
    return 2;
  }
  return RenderReports(f.results, f.paths, "tala report");
}
}  // namespace

int RenderReports(const std::string& results_path, const ReportPaths& paths, const char* who) {
  std::string notice;
  auto written = WriteReports(results_path, paths, &notice);
  if (!notice.empty()) std::fprintf(stderr, "%s: notice: %s\n", who, notice.c_str());
  if (!written) {
    std::fprintf(stderr, "%s: %s\n", who, written.error().ToString().c_str());
    return 2;
  }
  for (const std::string& path : *written) std::fprintf(stderr, "wrote %s\n", path.c_str());
  return 0;
}

void AddReportCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<ReportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Render a results file without re-running the judge: the HTML report (metric cards, "
      "diagnosis, a filterable table and a drill-down per row), a Markdown summary (metric "
      "means with 95% intervals, diagnosis counts; suited to a CI job summary), a CSV of every "
      "row's scores, or JUnit XML. Each file is written whole, then moved into place.");
  cmd->footer(
      "Examples:\n"
      "  tala report results.jsonl --html report.html\n"
      "  tala report results.jsonl --markdown - >> \"$GITHUB_STEP_SUMMARY\"");
  cmd->add_option("RESULTS", f->results, "results file written by tala eval")->required();
  cmd->add_option("--markdown", f->paths.markdown,
                  "write the Markdown summary here (- for stdout)");
  cmd->add_option("--html", f->paths.html,
                  "write the HTML report here: one self-contained file (metric cards, histograms, "
                  "diagnosis, a sortable and filterable table, a drill-down per row)");
  cmd->add_option("--csv", f->paths.csv, "write the per-row CSV here (- for stdout)");
  cmd->add_option("--junit", f->paths.junit,
                  "write JUnit XML here: one test case per metric, failing when no row was "
                  "scored (- for stdout); `tala gate --junit` writes one per gate");
  cmd->callback([f, exit_code] { *exit_code = RunReport(*f); });
}

}  // namespace tala::cli
