#pragma once
// The run summary as plain text for stdout, and as one JSON object for --json.

#include <string>

#include "tala/run_summary.h"

namespace tala::io {

// See tala::FormatSummary (include/tala/evaluate.h): the verdict, the worst rows, the metrics
// grouped by pipeline stage, notes last; `brief`: the verdict and the metric lines only.
std::string FormatSummaryTable(const RunSummary& summary, bool brief = false);
// The one-line verdict: which half of the pipeline fails most, in how many rows (with a 95%
// interval for the share), and the other half's largest failure; "" when no row was diagnosed.
std::string DiagnosisVerdict(const RunSummary& summary);
std::string FormatSummaryJson(const RunSummary& summary);
// The same summary as an HTML fragment, in the same order (the verdict, the worst rows, the
// metrics by stage), for a notebook (tala.Result._repr_html_).
std::string FormatSummaryHtml(const RunSummary& summary);
// --dry-run: the estimated calls, tokens and cost per prompt and per metric.
std::string FormatEstimateTable(const RunSummary& summary);

}  // namespace tala::io
