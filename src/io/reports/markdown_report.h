#pragma once
// Reports rendered from a results file alone (never re-running a judge): a Markdown summary for a
// CI job summary, and a CSV of every row's scores for spreadsheets.

#include <string>

#include "io/readers/results_reader.h"

namespace tala::io {

// The diagnosis with its worst rows (question and reason), the metrics table (mean, 95%
// interval, scored, undefined) and the diagnosis counts. (tala ci puts its gates above it.)
std::string RenderMarkdown(const ResultsFile& results, const std::string& title);
// id, one column per metric key (empty when null), diagnosis; RFC 4180 quoting.
std::string RenderCsv(const ResultsFile& results);

}  // namespace tala::io
