#pragma once
// Reads, from a JSON Lines file (a tala results file, or any labelled data), the values at
// dotted paths ("metadata.label", "scores.faithfulness") for `tala calibrate`.

#include <optional>
#include <string>
#include <vector>

#include "tala/status.h"

namespace tala::io {

struct LabelledValuesOptions {
  std::string human_path;
  std::string judge_path;
  std::string group_path;  // empty: no grouping
  // The human label counted as positive; empty: true, 1, "1", "true", "yes".
  std::string positive;
};

struct LabelledRow {
  bool human_positive = false;
  std::optional<double> judge;  // nullopt when the judge's value is null (undefined)
  std::string group;
};

struct LabelledValues {
  std::vector<LabelledRow> rows;
  long skipped_missing_human = 0;
};

// kDataError names file:line and the path when a value is missing or of the wrong type.
Result<LabelledValues> ReadLabelledValues(const std::string& path,
                                          const LabelledValuesOptions& options);

}  // namespace tala::io
