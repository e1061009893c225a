#pragma once
// labels.jsonl: human labels of rows of a results file, as `tala review` exports them. An
// optional first line {"tala_labels": {"pick", "seed", "metric", "n", "results"}} records how
// the rows were chosen; then one line per labelled row:
//   {"id": ..., "<metric>": number or true/false, "claims": [true, false, null, ...],
//    "note": "...", "labeller": "...", "time": "..."}
// Every field but id is optional.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tala/status.h"

namespace tala::io {

struct LabelSelection {
  std::string pick;  // random | stratified | low | uncertain
  int64_t seed = 0;
  std::string metric;
  int64_t n = 0;
  std::string results;  // the results file the rows came from
};

struct LabelRow {
  std::string id;
  std::map<std::string, double> values;     // metric -> the person's value (true = 1)
  std::vector<std::optional<bool>> claims;  // per-claim labels, in the judge's claim order
  std::string note, labeller, time;
};

struct Labels {
  std::optional<LabelSelection> selection;  // absent: a file from elsewhere
  std::vector<LabelRow> rows;
};

// kDataError naming file:line and field for a wrong type or a missing id; a later label of the
// same id replaces an earlier one (a person who changed their mind).
Result<Labels> ReadLabels(const std::string& path);

}  // namespace tala::io
