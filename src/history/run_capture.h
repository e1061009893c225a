#pragma once
// What the history keeps of one run: its description (tala/history.h's HistoryRun, means and
// intervals included) and its per-row scores, in row order, keyed by the rows' ids. Read once
// from a results file; a store keeps it as it is, a serve store receives it as JSON.

#include <string>
#include <utility>
#include <vector>

#include "tala/history.h"
#include "tala/status.h"

namespace tala::history {

struct RunCapture {
  HistoryRun run;
  std::vector<std::string> ids;
  // Per metric key (in HistoryRun::metrics' order): one value per id, NaN where none.
  std::vector<std::pair<std::string, std::vector<double>>> values;
};

// Reads options.results. kIoError/kDataError from the reader; kInvalidArgument for a file
// with no scored row.
Result<RunCapture> CaptureRun(const HistoryAddOptions& options);

// The paired change of `candidate` against `base` on rows both scored: the mean difference and
// its 95% interval (tala compare's seeded paired bootstrap up to 500 pairs, the normal interval
// of the differences above, where the two agree). pairs == 0 when no row is shared.
struct PairedChange {
  int64_t pairs = 0;
  double change = 0, low = 0, high = 0;
};
PairedChange ChangeBetween(const std::vector<std::string>& base_ids,
                           const std::vector<double>& base_values,
                           const std::vector<std::string>& candidate_ids,
                           const std::vector<double>& candidate_values);

}  // namespace tala::history
