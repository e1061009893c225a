#pragma once
// The run summary as a plain-text table for stdout, and as one JSON object for --json.

#include <string>

#include "tala/evaluate.h"

namespace tala::io {

std::string FormatSummaryTable(const RunSummary& summary);
std::string FormatSummaryJson(const RunSummary& summary);
// --dry-run: the estimated calls, tokens and cost per prompt and per metric.
std::string FormatEstimateTable(const RunSummary& summary);

}  // namespace tala::io
