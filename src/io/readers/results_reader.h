#pragma once
// Reads a tala results file (JSON Lines of {"id", "scores", ...}) back for `tala compare` and
// `tala gate`. Re-reading never re-runs a judge.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tala/status.h"

namespace tala::io {

struct ResultRow {
  std::string id;
  std::map<std::string, std::optional<double>> scores;  // null scores are nullopt
  std::string diagnosis;                                // empty when the row has none
};

struct ResultsFile {
  std::vector<ResultRow> rows;
  std::vector<std::string> metric_keys;  // in first-seen order
};

// Rows of `candidate` whose id is also in `base`, with both scores of `key` defined.
struct PairedScores {
  std::vector<double> base, candidate;
  std::vector<std::string> ids;
};
PairedScores PairById(const ResultsFile& base, const ResultsFile& candidate,
                      const std::string& key);

// kDataError names file:line and the field for a row without an id or scores.
Result<ResultsFile> ReadResults(const std::string& path);

}  // namespace tala::io
