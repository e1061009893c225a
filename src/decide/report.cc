#include "tala/report.h"

#include <cstdio>

#include "fs/atomic_file.h"
#include "io/readers/results_reader.h"
#include "io/reports/html_report.h"
#include "io/reports/junit_report.h"
#include "io/reports/markdown_report.h"

namespace tala {

namespace {
Status WriteFile(const std::string& path, const std::string& content) {
  if (path == "-") {
    if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size()) {
      return IoError("cannot write to standard output");
    }
    return OkStatus();
  }
  return fs::WriteFileAtomically(path, content);
}
}  // namespace

Status CheckReportPaths(const std::vector<fs::NamedPath>& inputs, const ReportPaths& paths) {
  return fs::CheckOutputsDistinct(inputs, {{"--markdown", paths.markdown},
                                           {"--csv", paths.csv},
                                           {"--html", paths.html},
                                           {"--junit", paths.junit}});
}

Result<std::vector<std::string>> WriteReports(const std::string& results_path,
                                              const ReportPaths& paths, std::string* notice) {
  TALA_RETURN_IF_ERROR(CheckReportPaths({{"RESULTS", results_path}}, paths));
  // Only the HTML report shows each row's raw line (its drill-down); the others need the numbers.
  TALA_ASSIGN_OR_RETURN(
      io::ResultsFile results,
      io::ReadResults(results_path, io::EmptyResults::kError,
                      paths.html.empty() ? io::RawLines::kDrop : io::RawLines::kKeep));
  if (notice != nullptr) *notice = io::CutOffNotice(results, results_path);
  std::vector<std::string> written;
  auto render = [&](const std::string& path, auto make) -> Status {
    if (path.empty()) return OkStatus();
    TALA_RETURN_IF_ERROR(WriteFile(path, make()));
    if (path != "-") written.push_back(path);
    return OkStatus();
  };
  std::vector<io::GateLine> gates;
  for (const ReportGate& g : paths.gates) gates.push_back({g.pass, g.detail});
  TALA_RETURN_IF_ERROR(
      render(paths.markdown, [&] { return io::RenderMarkdown(results, results_path); }));
  TALA_RETURN_IF_ERROR(render(paths.csv, [&] { return io::RenderCsv(results); }));
  TALA_RETURN_IF_ERROR(
      render(paths.html, [&] { return io::RenderHtml(results, results_path, gates); }));
  TALA_RETURN_IF_ERROR(render(paths.junit, [&] {
    return io::RenderJunit("tala metrics: " + results_path, io::MetricCases(results));
  }));
  return written;
}

}  // namespace tala
