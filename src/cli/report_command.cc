// tala report RESULTS: re-renders a results file (no judge is run) as Markdown and/or CSV.

#include <cstdio>
#include <fstream>

#include "cli/commands.h"
#include "io/reports/html_report.h"
#include "io/reports/junit_report.h"
#include "io/reports/markdown_report.h"

namespace tala::cli {

namespace {
struct ReportFlags {
  std::string results;
  ReportPaths paths;
};

bool WriteFile(const std::string& path, const std::string& content) {
  if (path == "-") {
    std::fwrite(content.data(), 1, content.size(), stdout);
    return true;
  }
  std::ofstream out(path, std::ios::binary);
  out << content;
  return static_cast<bool>(out);
}

int RunReport(const ReportFlags& f) {
  if (f.paths.markdown.empty() && f.paths.csv.empty() && f.paths.junit.empty() &&
      f.paths.html.empty()) {
    std::fprintf(stderr,
                 "tala report: give --html FILE, --markdown FILE, --csv FILE and/or --junit FILE "
                 "(- for stdout)\n");
    return 2;
  }
  return RenderReports(f.results, f.paths, "tala report");
}
}  // namespace

int RenderReports(const std::string& results_path, const ReportPaths& paths, const char* who) {
  auto results = io::ReadResults(results_path, io::EmptyResults::kError,
                                 paths.html.empty() ? io::RawLines::kDrop : io::RawLines::kKeep);
  if (!results) {
    std::fprintf(stderr, "%s: %s\n", who, results.error().ToString().c_str());
    return 2;
  }
  auto render = [&](const std::string& path, auto make) -> bool {
    if (path.empty()) return true;
    if (!WriteFile(path, make())) {
      std::fprintf(stderr, "%s: cannot write %s\n", who, path.c_str());
      return false;
    }
    if (path != "-") std::fprintf(stderr, "wrote %s\n", path.c_str());
    return true;
  };
  bool ok = render(paths.markdown, [&] { return io::RenderMarkdown(*results, results_path); }) &&
            render(paths.csv, [&] { return io::RenderCsv(*results); }) &&
            render(paths.html, [&] { return io::RenderHtml(*results, results_path); }) &&
            render(paths.junit, [&] {
              return io::RenderJunit("tala metrics: " + results_path, io::MetricCases(*results));
            });
  return ok ? 0 : 2;
}

void AddReportCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<ReportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Render a results file without re-running the judge: a Markdown summary (metric "
      "means with 95% intervals, diagnosis counts; suited to a CI job summary) and a CSV "
      "of every row's scores.");
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
