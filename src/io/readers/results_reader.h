#pragma once
// Reads a tala results file (JSON Lines of {"id", "scores", ...}) back for `tala compare` and
// `tala gate`. Re-reading never re-runs a judge.

#include <simdjson.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "io/readers/json_lines.h"
#include "io/writers/run_records.h"
#include "tala/status.h"

namespace tala::io {

struct ResultRow {
  std::string id;
  std::map<std::string, std::optional<double>> scores;  // null scores are nullopt
  std::string diagnosis;                                // empty when the row has none
  std::string error;                // the judge failure of the whole row, if any
  std::vector<std::string> failed;  // metrics undefined because the judge failed
  std::string failure_reason;       // `error`, else the first failed metric's reason
  std::string json;                 // the whole line, minified (only with RawLines::kKeep)
  std::string input_digest;         // InputDigest of the row scored ("" in older files)
  std::string question_digest;      // QuestionDigest ("" in older files)
  // For a row the diagnosis blames on a stage: its question (a conversation's last human turn)
  // and the reason of the metric that decided the diagnosis, for the summary's worst rows.
  std::string question, diagnosis_reason;
  // The judge failed on this row (for any metric), or on `key`'s metric: nulls the judge
  // caused, told apart from metrics that do not apply to the row.
  bool has_failures() const { return !error.empty() || !failed.empty(); }
  bool failed_on(const std::string& key) const {
    return std::find(failed.begin(), failed.end(), key) != failed.end() ||
           (!error.empty() && scores.count(key) > 0);
  }
};

struct ResultsFile {
  // In file order. A row re-scored by --resume is appended; the later row for an id replaces
  // the earlier one in place, and `superseded` counts how many were replaced.
  std::vector<ResultRow> rows;
  int64_t superseded = 0;
  std::vector<std::string> metric_keys;  // in first-seen order
  std::optional<RunManifest> manifest;   // absent in files from before manifests
  CallTally calls;                       // summed over the file's run records
  bool has_run_records = false;
  // What the judge's provider reported over all run records (see RunAccounting).
  std::set<std::string> models_reported, system_fingerprints;
  // How the file ends: a last row cut off by a crash or a full disk is left out, and its line
  // number kept here so a command can say so (CutOffNotice).
  JsonLinesTail tail;
};

// "PATH:LINE: the last row was cut off (...) and is left out", or "" when the file ends whole.
std::string CutOffNotice(const ResultsFile& results, const std::string& path);

// The direction of a results key: the registry's for built-in metrics; for a metric defined in
// tala.toml, what the file's manifest records (its version ends in "-lower" when lower is better).
Direction DirectionIn(const ResultsFile& results, const std::string& key);

// One metric's column of a results file: the defined values in row order, and the nulls.
struct MetricColumn {
  std::vector<double> values;
  int64_t nulls = 0;
  // REQUIRES: !values.empty().
  double mean() const;
};
MetricColumn ColumnOf(const ResultsFile& results, const std::string& key);

// Rows of `candidate` whose id is also in `base`, with both scores of `key` defined.
struct PairedScores {
  std::vector<double> base, candidate;
  std::vector<std::string> ids;
};
PairedScores PairById(const ResultsFile& base, const ResultsFile& candidate,
                      const std::string& key);

// How two runs' rows are matched. Rows with ids pair by id. Rows whose ids are their row numbers
// (a dataset without ids, as most Ragas datasets are) pair by their question and reference text,
// since a row number pairs nothing once the order changed; when a question repeats, that is
// ambiguous and refused unless `by_order` (then rows pair by position, and each pair's questions
// must still match).
struct Pairing {
  enum class By { kId, kQuestion, kOrder } by = By::kId;
  // Candidate row index -> base row index, for the rows that pair.
  std::vector<std::pair<size_t, size_t>> pairs;
  int64_t unmatched = 0;  // candidate rows without a partner
  std::string note;       // how rows were paired, when not by given ids
};
Result<Pairing> PairRows(const ResultsFile& base, const ResultsFile& candidate, bool by_order);
// The paired scores of `key` under `pairing` (rows with both values defined).
PairedScores PairedColumn(const ResultsFile& base, const ResultsFile& candidate,
                          const Pairing& pairing, const std::string& key);

enum class EmptyResults { kError, kAllowed };
enum class RawLines { kDrop, kKeep };  // kKeep: each row's JSON too (for the HTML report)
// One row line of a results file (not a manifest or run record): kDataError names file:line and
// the field for a row without an id or scores.
Result<ResultRow> ParseResultRow(simdjson::dom::element root, const std::string& path, int64_t line,
                                 RawLines raw = RawLines::kDrop);
// The questions of a results line: its inputs.user_input, or each human turn of a conversation,
// in order; none when it has no question.
std::vector<std::string> QuestionsOfResultLine(simdjson::dom::element root);
// The same of a row's `user_input` (a question, or a conversation's messages).
std::vector<std::string> QuestionsOfUserInput(simdjson::dom::element user_input);

// A row's question (a conversation's last human turn) and `metric`'s reason, read from its raw
// line (RawLines::kKeep; empty strings without it): what a worst-rows list shows beside the id.
struct QuestionAndReason {
  std::string question, reason;
};
QuestionAndReason QuestionAndReasonOf(const ResultRow& row, const std::string& metric);

// The records around the rows.
RunManifest ParseManifest(simdjson::dom::element manifest);
RunAccounting ParseRunRecord(simdjson::dom::element run_record);

// kDataError names file:line and the field for a row without an id or scores, and (kError) a
// file with no rows.
Result<ResultsFile> ReadResults(const std::string& path, EmptyResults empty = EmptyResults::kError,
                                RawLines raw = RawLines::kDrop);

}  // namespace tala::io
