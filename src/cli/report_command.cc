// tala report RESULTS: re-renders a results file (no judge is run) as Markdown and/or CSV.

#include <cstdio>
#include <fstream>

#include "cli/commands.h"
#include "io/reports/markdown_report.h"

namespace tala::cli {

namespace {
struct ReportFlags {
  std::string results, markdown, csv;
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
  if (f.markdown.empty() && f.csv.empty()) {
    std::fprintf(stderr, "tala report: give --markdown FILE and/or --csv FILE (- for stdout)\n");
    return 2;
  }
  auto results = io::ReadResults(f.results);
  if (!results) {
    std::fprintf(stderr, "tala report: %s\n", results.error().ToString().c_str());
    return 2;
  }
  for (const auto& [path, text] :
       {std::pair{f.markdown, f.markdown.empty() ? "" : io::RenderMarkdown(*results, f.results)},
        std::pair{f.csv, f.csv.empty() ? "" : io::RenderCsv(*results)}}) {
    if (path.empty()) continue;
    if (!WriteFile(path, text)) {
      std::fprintf(stderr, "tala report: cannot write %s\n", path.c_str());
      return 2;
    }
    if (path != "-") std::fprintf(stderr, "wrote %s\n", path.c_str());
  }
  return 0;
}
}  // namespace

void AddReportCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<ReportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Render a results file without re-running the judge: a Markdown summary (metric "
      "means with 95% intervals, diagnosis counts; suited to a CI job summary) and a CSV "
      "of every row's scores.");
  cmd->add_option("RESULTS", f->results, "results file written by tala eval")->required();
  cmd->add_option("--markdown", f->markdown, "write the Markdown summary here (- for stdout)");
  cmd->add_option("--csv", f->csv, "write the per-row CSV here (- for stdout)");
  cmd->callback([f, exit_code] { *exit_code = RunReport(*f); });
}

}  // namespace tala::cli
