#pragma once
// What a run reports: its progress while it runs, and its summary when it ends (per metric, the
// calls and tokens it cost, the diagnosis and its worst rows). The vocabulary shared by the
// engine that fills it (tala/evaluate.h), the runtime that counts calls, and the readers and
// reports that print it.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tala/metric.h"
#include "tala/status.h"

namespace tala {

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
  // Of prompt_tokens: read from the provider's prompt cache (billed at its cached price) and
  // written to it (Anthropic).
  int64_t cache_read_tokens = 0;
  int64_t cache_write_tokens = 0;
  CallTally& operator+=(const CallTally& o) {
    calls += o.calls;
    cache_hits += o.cache_hits;
    requests += o.requests;
    retries += o.retries;
    repairs += o.repairs;
    failed += o.failed;
    prompt_tokens += o.prompt_tokens;
    completion_tokens += o.completion_tokens;
    cache_read_tokens += o.cache_read_tokens;
    cache_write_tokens += o.cache_write_tokens;
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

// A metric's mean over every row of a run, corrected for the judge's bias with human labels on
// a few rows (prediction-powered inference; tala/estimate.h, and tala eval --labels).
struct Estimate {
  std::string metric;
  long n_total = 0;     // rows with a judge value
  long n_labelled = 0;  // of them, rows with a human value
  double ppi_mean = 0, ppi_low = 0, ppi_high = 0;
  double judge_mean = 0, judge_low = 0, judge_high = 0;
  double human_mean = 0, human_low = 0, human_high = 0;
  double judge_bias = 0;           // mean(judge − human) on the labelled rows
  double effective_n = 0;          // human labels alone that would give the PPI interval's width
  std::string pick;                // how the labelled rows were chosen ("random", ...; "unknown")
  std::vector<std::string> notes;  // caveats printed under the figures
};

// The figures of an Estimate that the run summary prints.
struct LabelledEstimate {
  std::string metric;
  long n_labelled = 0, n_total = 0;
  double ppi_mean = 0, ppi_low = 0, ppi_high = 0, judge_mean = 0, human_mean = 0;
};

// What --sequential decided: each gate's confidence sequence when judging stopped.
struct SequentialGate {
  std::string name;  // "faithfulness >= 0.7", "faithfulness drop <= 0.05"
  bool decided = false, pass = false;
  double low = 0, high = 0;  // the interval of the mean (or of the drop)
  int64_t rows = 0;          // values it read
};
struct SequentialOutcome {
  bool used = false;
  int64_t judged = 0, not_judged = 0;
  bool decided = false;  // every gate (or the width) decided before the rows ran out
  std::vector<SequentialGate> gates;
  std::string not_judged_file;  // the ids left, one JSON object a line
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
  // Why rows failed: each distinct reason in the order first met (the row's place, "file:LINE:",
  // left out, so one failure on many rows is one reason), with the rows it hit. At most the first
  // 5 distinct reasons are kept; rows_failed counts every failed row.
  std::vector<std::pair<std::string, int64_t>> failure_reasons;
  std::vector<LabelledEstimate> estimates;  // with EvalOptions::labels
  SequentialOutcome sequential;             // with EvalOptions::sequential
};

// The summary `tala eval` prints, for the faces that print it too (the Python package, tala ci):
// the diagnosis verdict first, the principal failure's worst rows, then the metrics grouped by
// the half of the pipeline they judge (at most 8 lines, the core metrics first; one line says how
// many more the results file holds), notes last. `brief` (tala eval -q): only the verdict line
// and the metric lines.
std::string FormatSummary(const RunSummary& summary, bool brief = false);
// The same summary as an HTML fragment in the same order, for a notebook's rich display.
std::string FormatSummaryHtml(const RunSummary& summary);

}  // namespace tala
