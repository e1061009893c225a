#pragma once
// Reports: re-render a results file (no judge runs) as HTML, Markdown, CSV or JUnit XML, shared
// by `tala report`, `tala eval --html ...` and the Python package. Safe to call from any thread
// (writing "-" to stdout excepted).

#include <string>
#include <vector>

#include "tala/status.h"

namespace tala {

// Where each report goes; empty: not written; "-": standard output.
struct ReportPaths {
  std::string markdown, csv, junit, html;
  bool empty() const { return markdown.empty() && csv.empty() && junit.empty() && html.empty(); }
};

// Writes every requested report and returns the paths written (stdout excluded). kIoError or
// kDataError for an unreadable results file; kIoError naming the path it could not write.
Result<std::vector<std::string>> WriteReports(const std::string& results_path,
                                              const ReportPaths& paths);

}  // namespace tala
