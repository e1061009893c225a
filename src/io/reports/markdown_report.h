#pragma once
// Reports rendered from a results file alone (never re-running a judge): a Markdown summary for a
// CI job summary, and a CSV of every row's scores for spreadsheets.

#include <string>

#include "io/readers/results_reader.h"

namespace tala::io {

// Metrics table (mean, 95% interval, scored, undefined), diagnosis counts, and the worst rows.
std::string RenderMarkdown(const ResultsFile& results, const std::string& title);
// id, one column per metric key (empty when null), diagnosis; RFC 4180 quoting.
std::string RenderCsv(const ResultsFile& results);

}  // namespace tala::io
