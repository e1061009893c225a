#pragma once
// The HTML report: one self-contained file (inline CSS, JavaScript and SVG; nothing fetched),
// readable offline. A run header (dataset, judge, prompt versions, date, calls and cost), a card
// per metric with its mean and 95% interval, a histogram per metric, the diagnosis breakdown, a
// sortable and filterable table of rows (paged, so 10,000 rows stay responsive), and a drill-down
// per row: question, response with each claim marked supported or not and the chunks that support
// it, the ranked chunks with their relevance marks, the reference claims with their attribution,
// and every reason. Opened as report.html#selftest it checks itself (sort, filter, drill-down,
// no script errors) and writes the outcome into the page, for the headless-browser test.
// Pure; thread-safe.

#include <string>
#include <vector>

#include "io/readers/results_reader.h"
#include "io/reports/gate_lines.h"

namespace tala::io {

// With `gates` (tala ci), the page opens with each gate's PASS or FAIL.
// REQUIRES: `results` was read with RawLines::kKeep.
std::string RenderHtml(const ResultsFile& results, const std::string& source,
                       const std::vector<GateLine>& gates = {});

}  // namespace tala::io
