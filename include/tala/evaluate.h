#pragma once
// Evaluate: the one library entry point behind `tala eval`. Reads a dataset, checks every row
// first (bad rows stop the run before any judge work unless skipped), scores each row with the
// requested metrics through one judge, appends each row's result to the results file as soon as
// it is scored, and returns the run summary. Call from one thread.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tala/metric.h"
#include "tala/status.h"

namespace tala {

enum class OnError { kFail, kSkip };

struct EvalOptions {
  std::string dataset;                // path, or "-" for stdin
  std::string format = "auto";        // auto | jsonl | json | csv
  std::string metrics;                // --metrics list; empty: every metric the data supports
  std::vector<int> ks;                // --k: cut-offs for hit_rate, precision, recall, ndcg
  std::string judge = "offline";      // judge registry name
  std::string out = "results.jsonl";  // results file ("-": stdout)
  OnError on_error = OnError::kFail;  // bad rows: stop before scoring, or skip and count
  int max_errors_shown = 20;          // errors kept for the report
  // Called after each scored row with (rows done, rows to do); may be empty.
  std::function<void(int64_t, int64_t)> progress;
};

struct MetricSummary {
  std::string key;
  Direction direction = Direction::kHigherIsBetter;
  int64_t scored = 0;     // rows with a number
  int64_t undefined = 0;  // rows where the metric is undefined (no claims, missing fields, ...)
  int64_t failed = 0;     // rows where the judge failed
  double sum = 0;
  double mean() const { return scored > 0 ? sum / static_cast<double>(scored) : 0.0; }
};

struct RunSummary {
  std::string judge;
  std::string results_path;
  int64_t rows_read = 0;
  int64_t rows_scored = 0;
  int64_t rows_skipped = 0;    // bad rows skipped under OnError::kSkip
  int64_t rows_failed = 0;     // rows whose judge call failed
  std::vector<Status> errors;  // the first max_errors_shown data errors
  std::vector<MetricSummary> metrics;
};

// kDataError (with `errors` filled) when rows are bad under OnError::kFail; kInvalidArgument for
// unknown metrics or judges; kIoError when the dataset or results file cannot be used. Rows
// already written stay written whatever happens.
Result<RunSummary> Evaluate(const EvalOptions& options, RunSummary* partial = nullptr);

}  // namespace tala
