#pragma once
// The history kept in a SQLite file (a path given to History::Open, or the database of
// `tala serve`, whose /v1/history routes serve it). Its tables sit beside any others in the
// file: history_runs (a run's description as JSON and its row ids), history_values (per run and
// metric, one float64 per row, NaN where none) and history_changes (each run's paired change
// against a predecessor, kept so that a trend over 1,000 runs is read, not recomputed).
// SQLite's own locking makes concurrent writers safe; a results file already stored (same
// SHA-256) is not added twice.

#include <sqlite3.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "history/run_capture.h"
#include "tala/history.h"

namespace tala::history {

class LocalHistory : public History {
 public:
  // Creates the file (and its folder) and the tables when missing.
  static Result<std::unique_ptr<LocalHistory>> OpenFile(const std::string& path);
  ~LocalHistory() override;

  Result<HistoryAdded> Add(const HistoryAddOptions& options) override;
  Result<std::vector<HistoryRun>> Runs(const HistoryTags& tags) override;
  Result<Trend> TrendOf(const TrendOptions& options) override;
  Result<int64_t> Prune(const HistoryPrune& options) override;
  Result<std::string> PageHtml(const TrendOptions& options) override;

  // A run read elsewhere (a serve store receives it as JSON).
  Result<HistoryAdded> AddCapture(RunCapture capture);
  // For a serve store: production's window means between two times (epoch seconds), as
  // Service::SeriesJson gives them, drawn under the runs on the history page.
  void SetProductionSeries(std::function<Result<std::string>(double from, double to)> series) {
    production_ = std::move(series);
  }

 private:
  LocalHistory() = default;
  Status Exec(const char* sql);
  Result<std::vector<HistoryRun>> LoadRuns(const HistoryTags& tags);
  // One run's ids, and one metric's values of it.
  Result<std::shared_ptr<const std::vector<std::string>>> Ids(int64_t run);
  Result<std::vector<double>> Values(int64_t run, const std::string& metric);
  Result<Trend> TrendOver(const std::vector<HistoryRun>& runs, const std::string& key,
                          double min_effect);
  std::string path_;
  sqlite3* db_ = nullptr;
  std::map<int64_t, std::shared_ptr<const std::vector<std::string>>> ids_;
  std::function<Result<std::string>(double, double)> production_;
};

// Which results key of the stored runs `metric` means: itself, or the one key an alias or a
// metric name stands for. kNotFound lists the stored keys; kInvalidArgument when a name stands
// for several keys (precision@1 and precision@5).
Result<std::string> KeyOfMetric(const std::vector<HistoryRun>& runs, const std::string& metric);

// The trend's arithmetic, given the runs (oldest first) and a way to get the paired change of a
// run against another: segments, comparisons and drops.
using ChangeOf = std::function<Result<PairedChange>(int64_t run, int64_t base)>;
Result<Trend> BuildTrend(const std::vector<HistoryRun>& runs, const std::string& key,
                         double min_effect, const ChangeOf& change_of);

// The page, from what it shows. `values_json`: per-row scores for the in-page comparison
// ({"ids":{run:[...]},"values":{run:{metric:[...]}}}), or "" when too large to embed;
// `production_json`: Service::SeriesJson's answer, or "".
std::string RenderHistoryPage(const std::vector<HistoryRun>& runs, const std::vector<Trend>& trends,
                              const std::string& values_json, const std::string& production_json);

}  // namespace tala::history
