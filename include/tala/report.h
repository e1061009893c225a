#pragma once
// Reports: re-render a results file (no judge runs) as HTML, Markdown, CSV or JUnit XML, shared
// by `tala report`, `tala eval --html ...` and the Python package. Safe to call from any thread
// (writing "-" to stdout excepted).

#include <string>
#include <vector>

#include "fs/output_paths.h"
#include "tala/status.h"

namespace tala {

// A gate's verdict, for reports that lead with the CI verdict (tala ci).
struct ReportGate {
  bool pass = true;
  std::string detail;  // "faithfulness >= 0.7000: mean 0.5512 [0.41, 0.69]"
};

// Where each report goes; empty: not written; "-": standard output. With `gates`, the HTML report
// opens with each gate's PASS or FAIL (tala ci writes them above its Markdown summary itself).
struct ReportPaths {
  std::string markdown, csv, junit, html;
  std::vector<ReportGate> gates;
  bool empty() const { return markdown.empty() && csv.empty() && junit.empty() && html.empty(); }
};

// Writes every requested report and returns the paths written (stdout excluded). kIoError or
// kDataError for an unreadable results file; kIoError naming the path it could not write.
// Each report is written whole (a scratch file renamed into place). A report path that is the
// results file, or another report's path, is refused before anything is written. `notice`, when
// given, gets a line about a cut-off last row that was left out (io::CutOffNotice).
Result<std::vector<std::string>> WriteReports(const std::string& results_path,
                                              const ReportPaths& paths,
                                              std::string* notice = nullptr);

// kInvalidArgument when a report path is one of `inputs` or another report's (fs/output_paths.h).
Status CheckReportPaths(const std::vector<fs::NamedPath>& inputs, const ReportPaths& paths);

}  // namespace tala
