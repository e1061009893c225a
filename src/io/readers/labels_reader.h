#pragma once
// labels.jsonl: human labels of rows of a results file, as `tala review` exports them. An
// optional first line {"tala_labels": {"pick", "seed", "metric", "n", "results"}} records how
// the rows were chosen; then one line per labelled row:
//   {"id": ..., "<metric>": number or true/false, "claims": [true, false, null, ...],
//    "note": "...", "labeller": "...", "time": "...", "pick_probability": 0.12}
// Every field but id is optional. Several reviewers may label one row: a line each, each with
// its own "labeller" (issue 55); the row's values are then the mean of theirs (for yes/no
// labels, the share who said yes), and `reviews` keeps each reviewer's.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/readers/results_reader.h"
#include "tala/status.h"

namespace tala::io {

struct LabelSelection {
  std::string pick;  // random | stratified | low | uncertain | active
  int64_t seed = 0;
  std::string metric;
  int64_t n = 0;
  std::string results;  // the results file the rows came from
};

struct LabelReview {
  std::string labeller;
  std::map<std::string, double> values;  // metric -> this reviewer's value (true = 1)
};

struct LabelRow {
  std::string id;
  std::map<std::string, double> values;     // metric -> the person's value (true = 1)
  std::vector<LabelReview> reviews;         // each reviewer's line, in file order
  std::vector<std::optional<bool>> claims;  // per-claim labels, in the judge's claim order
  std::string note, labeller, time;
  // tala review --pick active: the row's chance of having been picked (the estimate weights by it).
  std::optional<double> pick_probability;
};

struct Labels {
  std::optional<LabelSelection> selection;  // absent: a file from elsewhere
  std::vector<LabelRow> rows;
};

// kDataError naming file:line and field for a wrong type, a missing id, or an id labelled twice
// by one reviewer, or by lines without a labeller (naming both lines: which label stands cannot
// be guessed; tala review --serve merges a changed mind into one line).
Result<Labels> ReadLabels(const std::string& path);

// kDataError when a label of `metric` lies outside the values the metric can take: [0, 1] for
// a metric whose every value in `results` lies there (every built-in 0-1 metric), else the
// range the results show. A label of 7 for faithfulness is a typo, not a judgement (N12).
Status CheckLabelRange(const Labels& labels, const std::string& metric, const ResultsFile& results,
                       const std::string& path);

}  // namespace tala::io
