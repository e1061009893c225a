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
#include "tala/offline_blend.h"
#include "tala/run_summary.h"
#include "tala/shard.h"
#include "tala/status.h"

namespace tala {

enum class OnError { kFail, kSkip };

// Settings of an LLM judge ("openai:MODEL", "anthropic:MODEL") and of its runtime. Ignored by
// the offline and replay judges.
// A row people labelled, kept in a judge profile (tala align --examples N): LLM judges are shown
// the ones nearest to each row they judge, as data beside it, with the people's verdict (issue 55).
struct LabelledExample {
  std::string metric;            // the metric the label is of ("faithfulness")
  std::string question, answer;  // the row's texts
  bool right = false;            // the people's verdict: the answer passes on that metric
};

struct LlmOptions {
  std::string base_url;             // empty: OPENAI_BASE_URL, else the provider's API
  std::string api_key;              // empty: OPENAI_API_KEY or ANTHROPIC_API_KEY (may be unset)
  std::string embeddings = "auto";  // auto | offline | openai:MODEL (auto: openai judges use
                                    // text-embedding-3-small on the same server, others offline)
  std::string embeddings_base_url;  // empty: the judge's base URL
  bool estimate_only = false;       // --dry-run: nothing is sent, so no API key is asked for
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
  // auto (per row, the layout estimated to bill the fewest input tokens, provider cache
  // included) | separate | row-first (the same calls, each starting with the row's data, which
  // the provider's cache serves to all but the row's first) | combined (one call returns the
  // claims and chunk verdicts: the chunks sent once)
  std::string layout = "auto";
  // OpenAI's prompt_cache_key (a row's calls share one): auto sends it to api.openai.com only,
  // since compatible servers may refuse a field they do not know; on | off.
  std::string prompt_cache_key = "auto";
  // From a judge profile (--judge-profile of a profile written with tala align --examples): each
  // call that serves a labelled metric carries the examples nearest its row, up to
  // examples_per_call, in its request's "labelled_examples".
  std::vector<LabelledExample> labelled_examples;
  int examples_per_call = 3;
  int questions = 3;                         // questions generated for response relevancy
  std::string cache = ".tala/cache.sqlite";  // SQLite file, or "off"
  std::optional<double> price_input;         // USD per 1M prompt tokens (overrides built-in)
  std::optional<double> price_output;        // USD per 1M completion tokens
  // USD per 1M prompt tokens the provider's prompt cache served, and written to it (Anthropic);
  // override the built-in table's, which knows them for the models it prices.
  std::optional<double> price_cached_input;
  std::optional<double> price_cache_write;
};

// --sequential (issue 56): rows are judged in a seeded random order, and judging stops as soon as
// every gate is decided at level alpha by an anytime-valid confidence sequence (valid at every
// look), or, with target_width and no gate, once every metric's interval is that narrow. The
// rows left are not judged, and are listed beside the results file (OUT.not-judged.jsonl).
struct SequentialOptions {
  bool on = false;
  double alpha = 0.05;  // shared by the gates (Bonferroni)
  uint64_t seed = 42;   // of the order
  // A metric's mean at least this (at most, for lower-is-better metrics).
  std::map<std::string, double> min;
  // A metric's paired drop against `baseline` (a results file, rows paired by id) at most this.
  std::string baseline;
  std::map<std::string, double> max_drop;
  double target_width = 0;  // > 0: stop when every gated (else every) metric's interval is narrower
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
  // The offline judge's rows are judged on this many threads at once, each thread with a judge
  // of its own (0: one per core); results are written in input order whatever the count. Other
  // judges use one thread (an LLM judge's concurrency is llm.max_in_flight).
  int threads = 1;
  std::string out = "results.jsonl";  // results file ("-": stdout)
  OnError on_error = OnError::kFail;  // bad rows: stop before scoring, or skip and count
  int max_errors_shown = 20;          // errors kept for the report
  double diagnosis_threshold = 0.7;   // a diagnostic metric below this fails its stage
  // The digest of the judge profile (tala align) whose thresholds are in diagnosis_thresholds:
  // recorded in the manifest, so runs made with different profiles are told apart.
  std::string judge_profile;
  // Per-metric thresholds ("context_recall" -> 0.6) that override diagnosis_threshold.
  std::map<std::string, double> diagnosis_thresholds;
  // A judge profile's refitted weights of the offline judge's relevance blends (tala align).
  OfflineBlend offline_blend;
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
  SequentialOptions sequential;
  const std::atomic<bool>* stop = nullptr;  // set (by a signal handler) to stop cleanly
  // Called as rows are scored (and, for LLM judges, as calls progress); may be empty.
  std::function<void(const Progress&)> progress;
};

// kDataError (with `errors` filled) when rows are bad under OnError::kFail; kInvalidArgument for
// unknown metrics or judges; kIoError when the dataset or results file cannot be used. Rows
// already written stay written whatever happens.
Result<RunSummary> Evaluate(const EvalOptions& options, RunSummary* partial = nullptr);

}  // namespace tala
