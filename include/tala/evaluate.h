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
  double diagnosis_threshold = 0.7;   // a diagnostic metric below this fails its stage
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
  // Over the scored rows (valid when scored > 0): median, sample standard deviation, and the
  // 95% interval of the mean (Wilson for 0/1 metrics, else a seeded bootstrap).
  double median = 0, stddev = 0, ci_low = 0, ci_high = 0;
  std::string interval = "bootstrap";  // wilson (0/1 values), bootstrap, or normal (huge runs)
};

struct DiagnosedRow {
  std::string id;
  std::string diagnosis;
  double score = 0;  // the value of the metric that decided the diagnosis
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
  // Diagnosis name -> rows, in pipeline order; the most frequent failure; its worst rows.
  std::vector<std::pair<std::string, int64_t>> diagnoses;
  std::string principal_failure;  // empty when no row failed
  std::vector<DiagnosedRow> worst_rows;
  std::vector<std::string> notes;  // caveats the summary prints under the table
};

// kDataError (with `errors` filled) when rows are bad under OnError::kFail; kInvalidArgument for
// unknown metrics or judges; kIoError when the dataset or results file cannot be used. Rows
// already written stay written whatever happens.
Result<RunSummary> Evaluate(const EvalOptions& options, RunSummary* partial = nullptr);

}  // namespace tala
