#pragma once
// Evaluate: the one library entry point behind `tala eval`. Reads a dataset, checks every row
// first (bad rows stop the run before any judge work unless skipped), scores each row with the
// requested metrics through one judge, appends each row's result to the results file as soon as
// it is scored, and returns the run summary. Call from one thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tala/judge.h"
#include "tala/metric.h"
#include "tala/shard.h"
#include "tala/status.h"

namespace tala {

enum class OnError { kFail, kSkip };

// Settings of an LLM judge ("openai:MODEL", "anthropic:MODEL") and of its runtime. Ignored by
// the offline and replay judges.
struct LlmOptions {
  std::string base_url;             // empty: OPENAI_BASE_URL, else the provider's API
  std::string api_key;              // empty: OPENAI_API_KEY or ANTHROPIC_API_KEY (may be unset)
  std::string embeddings = "auto";  // auto | offline | openai:MODEL (auto: openai judges use
                                    // text-embedding-3-small on the same server, others offline)
  std::string embeddings_base_url;  // empty: the judge's base URL
  double temperature = 0;
  bool send_temperature = true;      // some models reject a temperature
  std::optional<int64_t> seed = 42;  // nullopt: not sent
  int max_tokens = 2048;             // per call
  bool structured_output = true;     // JSON schema response_format (OpenAI-compatible)
  int max_in_flight = 32;            // HTTP requests at once
  double requests_per_minute = 0;    // 0: no limit
  double tokens_per_minute = 0;      // 0: no limit
  int timeout_ms = 120000;           // per request
  int max_retries = 6;               // per call, after the first try
  std::string batching = "batched";  // batched | per-chunk (one chunk-rating call per chunk)
  int questions = 3;                 // questions generated for response relevancy
  std::string cache = ".tala/cache.sqlite";  // SQLite file, or "off"
  std::optional<double> price_input;         // USD per 1M prompt tokens (overrides built-in)
  std::optional<double> price_output;        // USD per 1M completion tokens
};

// What the progress line shows.
struct Progress {
  int64_t rows_done = 0;
  int64_t rows_total = 0;
  int in_flight = 0;
  int64_t cache_hits = 0;
  int64_t failed_calls = 0;
  int64_t retries = 0;
  int64_t tokens = 0;
};

struct EvalOptions {
  std::string dataset;          // path, or "-" for stdin
  std::string format = "auto";  // auto | jsonl | json | csv
  std::string metrics;          // --metrics list; empty: every metric the data supports
  // Metrics defined without code ([metrics.NAME] in tala.toml): named in `metrics` like any
  // other, and scored with the defaults when `metrics` is empty.
  std::vector<UserMetricDef> user_metrics;
  // The rubric of rubrics_score when `metrics` gives it none ("score1" -> "The answer is...";
  // [rubrics] in tala.toml).
  std::map<std::string, std::string> rubrics;
  std::vector<int> ks;            // --k: cut-offs for hit_rate, precision, recall, ndcg
  std::string judge = "offline";  // judge registry name
  // A judge of the caller's own (the Python package's custom judges). When set it answers instead
  // of `judge`, and its name() stands in the manifest. Called from the evaluating thread only.
  std::shared_ptr<Judge> custom_judge;
  std::string out = "results.jsonl";  // results file ("-": stdout)
  OnError on_error = OnError::kFail;  // bad rows: stop before scoring, or skip and count
  int max_errors_shown = 20;          // errors kept for the report
  double diagnosis_threshold = 0.7;   // a diagnostic metric below this fails its stage
  // Per-metric thresholds ("context_recall" -> 0.6) that override diagnosis_threshold.
  std::map<std::string, double> diagnosis_thresholds;
  LlmOptions llm;
  bool resume = false;  // keep the rows already in `out` and score only the others
  // Replace an existing `out` that is not a tala results file, or that holds an LLM judge's
  // (paid-for) verdicts; without it such a file is refused (resume it, or choose another path).
  bool overwrite = false;
  bool dry_run = false;  // estimate calls, tokens and cost; call nothing, write nothing
  int repeats = 1;       // >1: score R times (repeats bypass the cache) to measure judge noise
  // Human labels (tala review's labels.jsonl): each labelled metric also gets its
  // prediction-powered estimate (include/tala/estimate.h) in the summary.
  std::string labels;
  // Score one shard of the dataset (include/tala/shard.h): `out` then appears only once the
  // shard is finished, with its state beside it for `tala merge`. Not with resume, repeats or
  // labels.
  ShardSpec shard;
  const std::atomic<bool>* stop = nullptr;  // set (by a signal handler) to stop cleanly
  // Called as rows are scored (and, for LLM judges, as calls progress); may be empty.
  std::function<void(const Progress&)> progress;
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
  // --repeats: the mean of each repeat, their standard deviation (the judge's own noise) and
  // the gate threshold it suggests (mean - 2 sd, for higher-is-better metrics).
  std::vector<double> repeat_means;
  double repeat_stddev = 0;
  double suggested_gate = 0;
};

// Model calls and tokens, for a run or one part of it.
struct CallTally {
  int64_t calls = 0;       // logical calls answered by the model
  int64_t cache_hits = 0;  // logical calls answered by the cache
  int64_t requests = 0;    // HTTP requests, retries and repairs included
  int64_t retries = 0;
  int64_t repairs = 0;
  int64_t failed = 0;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  std::optional<double> cost_usd;  // when the model's price is known
  CallTally& operator+=(const CallTally& o) {
    calls += o.calls;
    cache_hits += o.cache_hits;
    requests += o.requests;
    retries += o.retries;
    repairs += o.repairs;
    failed += o.failed;
    prompt_tokens += o.prompt_tokens;
    completion_tokens += o.completion_tokens;
    if (o.cost_usd) cost_usd = cost_usd.value_or(0) + *o.cost_usd;
    return *this;
  }
};

struct RunAccounting {
  bool used = false;       // an LLM judge ran
  bool estimated = false;  // --dry-run: calls not made, tokens estimated (4 chars a token)
  CallTally total;
  std::vector<std::pair<std::string, CallTally>> by_prompt;  // "rate_chunks@2", ...
  // Shared calls are split evenly between the metrics that use them.
  std::vector<std::pair<std::string, CallTally>> by_metric;
  int64_t rows = 0;  // rows the calls were made for
  // The model versions and system fingerprints the provider reported (OpenAI's `model` and
  // `system_fingerprint`), each once: `tala compare` warns when two runs' differ.
  std::vector<std::string> models_reported, system_fingerprints;
};

struct DiagnosedRow {
  std::string id;
  std::string diagnosis;
  double score = 0;      // the value of the metric that decided the diagnosis
  std::string question;  // the row's question (its last human turn), "" for rows kept by --resume
  std::string reason;    // why that metric scored as it did, "" for rows kept by --resume
};

// A metric's mean corrected by human labels (see include/tala/estimate.h).
struct LabelledEstimate {
  std::string metric;
  long n_labelled = 0, n_total = 0;
  double ppi_mean = 0, ppi_low = 0, ppi_high = 0, judge_mean = 0, human_mean = 0;
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
  int64_t rows_resumed = 0;        // rows kept from the results file (--resume)
  int64_t rows_retried = 0;        // --resume: rows whose judge calls had failed, scored again
  int64_t rows_changed = 0;        // --resume: rows whose inputs changed, scored again
  RunAccounting accounting;
  std::vector<std::string> warnings;  // e.g. a corrupt cache that was rebuilt
  // Why rows failed: each distinct reason in the order first met, with the rows it hit. At most
  // the first 5 distinct reasons are kept; rows_failed counts every failed row.
  std::vector<std::pair<std::string, int64_t>> failure_reasons;
  std::vector<LabelledEstimate> estimates;  // with EvalOptions::labels
};

// kDataError (with `errors` filled) when rows are bad under OnError::kFail; kInvalidArgument for
// unknown metrics or judges; kIoError when the dataset or results file cannot be used. Rows
// already written stay written whatever happens.
Result<RunSummary> Evaluate(const EvalOptions& options, RunSummary* partial = nullptr);

// The summary `tala eval` prints, for the faces that print it too (the Python package, tala ci):
// the diagnosis verdict first, the principal failure's worst rows, then the metrics grouped by
// the half of the pipeline they judge (at most 8 lines, the core metrics first; one line says how
// many more the results file holds), notes last. `brief` (tala eval -q): only the verdict line
// and the metric lines.
std::string FormatSummary(const RunSummary& summary, bool brief = false);
// The same summary as an HTML fragment in the same order, for a notebook's rich display.
std::string FormatSummaryHtml(const RunSummary& summary);

}  // namespace tala
