#pragma once
// History: every run remembered. A store of runs (a SQLite file, by default
// .tala/history.sqlite, or a running `tala serve` reached over HTTP) keeps each results file's
// manifest, per-metric means and per-row scores keyed by id, so that a metric's trend across
// runs can say, for each run, how it changed from the previous comparable run (same golden
// set, judge and metric version) with a paired interval, and flag a drop only when that
// interval excludes 0 in the bad direction and the change is larger than a minimum effect.
// Shared by `tala history`, `tala ci` ([history]), `tala serve` (its /v1/history routes and the
// dashboard's Runs tab) and the Python package. One History per thread.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tala/metric.h"
#include "tala/status.h"

namespace tala {

using HistoryTags = std::vector<std::pair<std::string, std::string>>;  // k=v, in given order

struct HistoryMetric {
  std::string key;  // results key ("faithfulness", "context_precision@5", ...)
  Direction direction = Direction::kHigherIsBetter;
  std::string version;  // the metric's definition version from the manifest ("" when absent)
  int64_t scored = 0;   // rows with a value
  double mean = 0, ci_low = 0, ci_high = 0;  // 95% interval of the mean, as tala eval prints it
};

struct HistoryRun {
  int64_t id = 0;              // the store's number for the run, in the order runs were added
  std::string label;           // --label, or the commit and branch tala ci found
  HistoryTags tags;            // --tag k=v
  std::string time;            // when the run was made (its manifest), UTC ISO 8601
  std::string added;           // when it was stored
  std::string dataset;         // the dataset path the run read
  std::string dataset_sha256;  // the scored file's digest (its responses differ run to run)
  // What runs are compared on: a digest of the rows' ids and questions (with their references
  // and conversation turns), so two runs of one golden set match whatever the pipeline answered;
  // for files from before row digests, "file:" and the dataset's digest.
  std::string golden_digest;
  std::string judge;
  std::string results;         // the results file it came from (absolute path, may be gone)
  std::string report;          // its HTML report, when one was named
  std::string results_sha256;  // a run is stored once
  int64_t rows = 0;
  std::vector<HistoryMetric> metrics;
};

struct HistoryAddOptions {
  std::string results;  // the results file of the run
  std::string label;
  HistoryTags tags;
  std::string report;  // its HTML report, linked from the history page (optional)
};

struct HistoryAdded {
  bool added = false;  // false: the same results file is already stored, as `run`
  HistoryRun run;
};

struct TrendOptions {
  std::string metric;  // results key or alias
  HistoryTags tags;    // only runs carrying every one of these
  // The smallest change flagged as a drop: a change whose interval excludes 0 but is smaller
  // is real yet too small to act on (and, across many runs, noise passes 95% now and then).
  double min_effect = 0.02;
};

struct TrendPoint {
  HistoryRun run;  // without its metrics
  int64_t scored = 0;
  double mean = 0, ci_low = 0, ci_high = 0;
  int segment = 0;  // runs in one segment are comparable with each other
  // Why this run starts a new segment ("another dataset", "another judge", "another version of
  // the metric"); empty for the first run and for runs in their predecessor's segment.
  std::string new_segment;
  bool compared = false;  // has a predecessor in its segment, with rows in common
  int64_t base_id = 0;    // that predecessor
  int64_t pairs = 0;      // rows scored in both
  double change = 0;      // mean over the paired rows: this run − the predecessor
  double change_low = 0, change_high = 0;  // its paired 95% interval
  bool drop = false;
};

struct Trend {
  std::string metric;  // the results key the runs use
  Direction direction = Direction::kHigherIsBetter;
  double min_effect = 0;
  std::vector<TrendPoint> points;  // runs scoring the metric, oldest first
};

struct HistoryPrune {
  int64_t keep = -1;            // keep the newest N runs (-1: no limit)
  double older_than_days = -1;  // remove runs made more than D days ago (-1: no limit)
};

// A store. Open(location) takes a path (created, with its folder, on first use) or an
// http:// or https:// address of a `tala serve` (then `token` is its bearer token).
class History {
 public:
  virtual ~History() = default;
  static Result<std::unique_ptr<History>> Open(const std::string& location,
                                               const std::string& token = "");

  // kIoError/kDataError for an unreadable results file, kInvalidArgument for an empty one.
  virtual Result<HistoryAdded> Add(const HistoryAddOptions& options) = 0;
  // Oldest first; only runs carrying every tag in `tags`.
  virtual Result<std::vector<HistoryRun>> Runs(const HistoryTags& tags) = 0;
  // kNotFound, listing the stored metrics, when no run scored the metric.
  virtual Result<Trend> TrendOf(const TrendOptions& options) = 0;
  // The runs removed.
  virtual Result<int64_t> Prune(const HistoryPrune& options) = 0;
  // The self-contained history page: a chart per metric, the runs' table, a run's own report
  // on a click and any two runs compared. Opened as history.html#selftest it checks itself.
  virtual Result<std::string> PageHtml(const TrendOptions& options) = 0;
};

// Reads a "k=v" tag; kInvalidArgument otherwise.
Result<std::pair<std::string, std::string>> ParseHistoryTag(const std::string& text);

// What `tala history` prints: the runs, a line each; the trend, a line each with the change
// and the word "drop" on flagged runs.
std::string FormatRuns(const std::vector<HistoryRun>& runs);
std::string FormatTrend(const Trend& trend);
// The JSON that `--json`, the Python package and a serve store's routes exchange.
std::string RunsJson(const std::vector<HistoryRun>& runs);
std::string TrendJson(const Trend& trend);
Result<std::vector<HistoryRun>> ParseRunsJson(const std::string& json);
Result<Trend> ParseTrendJson(const std::string& json);

}  // namespace tala
