#pragma once
// Service: the engine behind `tala serve`, scoring a sample of production traffic. Rows come in
// as the dataset's JSON (one object or JSON Lines, plus `timestamp` and `tags`), are checked by
// the dataset's row parser, and are committed to SQLite (WAL, synchronous=FULL) before Ingest
// returns, so an acknowledged row survives kill -9. A deterministic share of them (by a hash of
// the id) is scored in the background with the configured metrics and judge; each row is
// scored once, and rows left pending by a crash are scored after a restart. Summaries give
// rolling windows per metric (mean, 95% interval, n) and the diagnosis mix, optionally for one
// tag; the same figures in Prometheus' text format. Thread-safe: one mutex guards the database;
// scoring runs outside it.

#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tala/evaluate.h"
#include "tala/history.h"
#include "tala/status.h"

namespace tala {

// An alert rule: "faithfulness.mean_7d < 0.70" fires once when the metric's mean over the
// window crosses the threshold with at least min_rows values, and clears once the mean is back
// by clear_margin (hysteresis, so a mean hovering at the threshold does not flap).
struct AlertRule {
  std::string text;  // as written
  std::string metric, window;
  int64_t window_seconds = 0;
  std::string op;  // <, <=, >, >=
  double threshold = 0;
  int64_t min_rows = 20;
  double clear_margin = 0.02;
  std::string webhook;  // where the event is POSTed (empty: logged only)
  // A firing rule whose window holds no row any more clears ("no data"), when set.
  bool clear_on_no_data = false;
};
// "METRIC.mean_WINDOW OP NUMBER" (windows: 90m, 1h, 1d, 7d...); kInvalidArgument naming the rule.
Result<AlertRule> ParseAlertRule(const std::string& text);

struct AlertEvent {
  int64_t id = 0;
  std::string rule, event;  // event: fired | cleared
  double at = 0, mean = 0, threshold = 0;
  int64_t n = 0;
  std::string webhook;
  // The JSON POSTed to the webhook: {"rule", "event", "metric", "window", "mean", "n",
  // "threshold", "at" (ISO 8601 UTC)}.
  std::string Payload() const;
};

// Which stored rows to export: scored rows stamped at or after `since`, optionally only those
// whose `metric` is at most `max_score` (the failing ones), oldest first.
struct RowQuery {
  double since = 0;
  std::string metric;
  std::optional<double> max_score;
  int64_t limit = 10000;
  bool worst_first = false;  // by the metric's value, lowest first (REQUIRES: metric)
};

struct StoredRow {
  std::string result;  // its line in the results format (scores, reasons, verdicts, inputs)
  std::string row;     // the row as received: a dataset line, to become a golden case
};

struct ServeOptions {
  std::string db = "tala.sqlite";
  std::string metrics = "faithfulness,response_relevancy";  // reference-free by default
  // Metrics defined without code and rubrics_score's rubric, as in EvalOptions (tala.toml's
  // [metrics.NAME] and [rubrics] tables).
  std::vector<UserMetricDef> user_metrics;
  std::map<std::string, std::string> rubrics;
  std::string judge = "offline";  // or openai:MODEL / anthropic:MODEL with `llm`
  // The documents the application answers from (a folder, or a JSON Lines file of chunks, as
  // tala testset --docs): /v1/gaps reads production questions against them; empty, against
  // the passages retrieved for each question.
  std::string docs;
  LlmOptions llm;               // base_url, cache, retries, requests_per_minute, prices...
  double max_cost_per_day = 0;  // USD of judge calls over the last 24 h; 0: no limit.
                                // Past it, sampled rows are skipped (counted), not scored.
  double sample = 1.0;          // share of rows scored, by id hash: 0..1
  // Shares for rows with a tag ("route=checkout" → 0.5); the first that matches wins.
  std::vector<std::pair<std::string, double>> sample_by_tag;
  size_t max_rows_per_request = 10000;  // more: the request is refused whole
  // Sampled rows waiting to be scored; past it the oldest are skipped (counted), never refused.
  int64_t max_pending = 100000;
  double diagnosis_threshold = 0.7;
  // Per-metric thresholds over diagnosis_threshold (a judge profile's: tala align).
  std::map<std::string, double> diagnosis_thresholds;
  OfflineBlend offline_blend;  // a judge profile's refitted relevance weights (the offline judge)
  // Named windows, seconds: the summaries' and /metrics' defaults.
  std::vector<std::pair<std::string, int64_t>> windows = {
      {"1h", 3600}, {"1d", 86400}, {"7d", 7 * 86400}};
  std::vector<AlertRule> alerts;
  // Tags broken down in /metrics, /v1/summary?tag= and the aggregates ("route", "app_version"),
  // with at most `max_tag_values` values each (more are counted as capped). A summary by any
  // other tag reads the rows, which costs the rows of its window.
  std::vector<std::string> tag_keys;
  int max_tag_values = 100;
  // Retention, enforced by Prune in small deletes: rows (and their scores) stamped more than
  // `retain_days` ago, and the oldest rows while the database's live pages pass `max_db_bytes`.
  // 0: no limit. Rows waiting to be scored are kept; the aggregates are kept whole.
  double retain_days = 0;
  int64_t max_db_bytes = 0;
  // OTLP spans wait in the database by trace id until their trace is whole: its root span has
  // ended and `trace_linger` seconds passed with no new span of it, or (a root that never
  // comes) `trace_timeout` seconds passed with none. Then the trace becomes one row. At most
  // `max_open_traces` traces wait; spans of more are refused (told in partialSuccess).
  double trace_linger = 10;
  double trace_timeout = 300;
  int64_t max_open_traces = 100000;
  // Conversations: a row with a `conversation_id` (an OTLP trace with session.id or
  // gen_ai.conversation.id) is a turn; its conversation's turns wait in the database until no
  // turn of it came for `session_quiet` seconds, then become one conversation row (its id the
  // conversation's), scored turn by turn when conversation metrics are asked.
  double session_quiet = 300;
  // One server per database: an exclusive lock (fs/file_lock.h) held while the Service lives,
  // so two servers never score, or pay for, the same rows. Off for readers (tala export).
  bool lock_db = true;
  // Set (by a signal handler) to stop: judge calls in flight are cancelled and their rows stay
  // pending for the next start.
  const std::atomic<bool>* stop = nullptr;
};

// What POST /v1/labels did with a labels file (tala review's export).
struct LabelsAnswer {
  int64_t stored = 0;  // labels stored (one per row, metric and reviewer; a later one replaces)
  int64_t unknown_ids = 0;  // of the labelled rows, ids not (yet) in the database
};

struct IngestAnswer {
  int64_t accepted = 0;  // rows committed
  int64_t sampled = 0;   // of them, rows that will be scored
  // Of the accepted, turns of conversations (rows with a conversation_id), new ones: they wait
  // for their conversation to go quiet, which is then sampled and scored as one row.
  int64_t turns_held = 0;
  // IngestTraces: spans refused (their trace is a row already, or too many traces are open),
  // and why, for OTLP's partialSuccess.
  int64_t skipped = 0;
  std::string why_skipped;
  int64_t duplicates = 0;  // of the accepted, rows whose id was already stored (not stored again)
  // Of the duplicates, rows whose id was stored with other content (the first is kept), and the
  // first few such ids.
  int64_t conflicts = 0;
  std::vector<std::string> conflict_ids;
  std::vector<std::string> ids;
};

class Service {
 public:
  // Opens (or creates) the database and sets up the metrics and the judge. kInvalidArgument for
  // unknown metrics or judges; kIoError when the database cannot be used.
  static Result<std::unique_ptr<Service>> Open(const ServeOptions& options);
  ~Service();
  // What setting up said that the operator should see (a damaged cache moved aside).
  const std::vector<std::string>& warnings() const;

  // Checks every row of `body` (a JSON object, or JSON Lines) and commits them all, or none:
  // kDataError naming "request", the line and the field of the first bad row; kUnavailable
  // (retry later) when the scoring queue is full. `now` stamps rows without a timestamp.
  Result<IngestAnswer> Ingest(std::string_view body, double now);
  // OTLP/HTTP traces, JSON or (with `protobuf`) an ExportTraceServiceRequest's bytes: their
  // spans are committed to the trace buffer, by trace id (`now` is when they came); a trace
  // becomes one row later, in FlushTraces (the mapping: src/serve/otlp.h). The answer counts
  // spans: accepted (stored) and skipped (refused, with why); ids are the traces'.
  // kDataError naming "request" and the field when the body is not OTLP.
  Result<IngestAnswer> IngestTraces(std::string_view body, double now, bool protobuf = false);
  // Makes rows, as Ingest, of up to `max_traces` buffered traces that are whole at `now` (see
  // ServeOptions::trace_linger); traces that give no row are counted by reason in /metrics.
  // Returns the traces closed. Call it every second or so.
  Result<int64_t> FlushTraces(double now, int max_traces = 200);
  // Traces whose spans wait in the buffer.
  int64_t open_traces() const;
  // Makes one conversation row of each conversation (up to `max_sessions`) none of whose turns
  // came for ServeOptions::session_quiet seconds at `now`: its turns in order (their `turn`,
  // else their timestamps), each answer with its own passages. Returns the conversations
  // closed. Call it every second or so.
  Result<int64_t> FlushSessions(double now, int max_sessions = 200);
  // Conversations whose turns wait in the session buffer.
  int64_t open_sessions() const;
  // How long the oldest row waiting to be scored has waited, in seconds at `now` (0: none).
  double ScoringLag(double now) const;

  // Scores up to `max_rows` waiting rows (oldest first); the number scored.
  Result<int64_t> ScorePending(int max_rows);
  int64_t pending() const;

  // {"window", "tag", "rows_ingested", "rows_sampled", "rows_scored", "rows_failed",
  //  "rows_pending", "metrics": {name: {"mean", "ci": [lo, hi], "n"}}, "diagnoses": {...}} over
  // rows stamped within `window` (a name from the options, or a number of seconds) before
  // `now`; `tag` is "" or KEY=VALUE. kInvalidArgument for an unknown window or a bad tag.
  //  With labels (AddLabels) on rows of the window and no tag, each metric also gets
  //  "corrected": {"mean", "ci", "labels", "rows"}: the prediction-powered mean of the window's
  //  rows, the judge's values corrected by the people's, as tala estimate computes it.
  Result<std::string> SummaryJson(const std::string& window, const std::string& tag, double now);
  // People's labels of stored rows, in tala review's labels.jsonl format (a header line, then
  // {"id", "<metric>": value, "labeller", "pick_probability", ...} a line): each served metric's
  // label stored by row, metric and reviewer. kDataError naming the request's line and field for
  // a bad line; kInvalidArgument for a label of a metric not served or outside [0, 1].
  Result<LabelsAnswer> AddLabels(std::string_view body, double now);
  // Prometheus text exposition: per metric and window the mean and count, and the row counters.
  Result<std::string> PrometheusText(double now);
  // Deletes up to `max_rows` rows past the retention limits (one short transaction), then gives
  // the freed pages back to the file system where the database allows (incremental vacuum).
  // Returns the rows deleted; 0 when nothing is past the limits. Call it again while it returns
  // `max_rows`.
  Result<int64_t> Prune(double now, int64_t max_rows = 5000);
  // One HTTP request answered, for /metrics: its route ("/v1/interactions", or "other"), status
  // and seconds taken. Thread-safe.
  void RecordHttp(const std::string& route, int status, double seconds);

  // Evaluates every alert rule at `now`; each change of state is stored (state and history
  // survive restarts) and returned, to be delivered.
  Result<std::vector<AlertEvent>> CheckAlerts(double now);
  // Events whose webhook has not acknowledged them yet and whose next attempt is due at `now`
  // (delivery is retried until it answers 2xx, with backoff).
  Result<std::vector<AlertEvent>> UndeliveredAlerts(
      double now = std::numeric_limits<double>::infinity());
  Status MarkAlertDelivered(int64_t id);
  // One delivery attempt of event `id` at `at`: the webhook's HTTP status (0: no answer) and
  // what went wrong. 2xx marks it delivered; anything else schedules the next attempt after an
  // exponential backoff (1 s doubling, at most 5 minutes, with ±20% jitter fixed by the event
  // and the attempt). Every attempt is kept and shown in /v1/alerts.
  Status RecordAlertAttempt(int64_t id, double at, int http_status, const std::string& error);
  // {"rules": [{"rule", "firing", "since", "min_rows"}], "history": [events, newest first, at
  // most 100, each with its delivery: attempts, delivered, next_attempt, last_error],
  // "attempts": [the last 100 delivery attempts]}.
  Result<std::string> AlertsJson();

  // kInvalidArgument when `metric` is not served or max_score comes without it.
  Result<std::vector<StoredRow>> Rows(const RowQuery& query);

  // The window cut into `buckets` equal spans ending at `now`: {"start", "seconds", "buckets":
  // [{"t", "metrics": {name: {"n", "mean", "ci"}}, "diagnoses": {name: n}}]}.
  Result<std::string> SeriesJson(int64_t window_seconds, int buckets, double now);
  // The dashboard: one self-contained page (nothing fetched) with each metric's window mean and
  // 95% band over the last 24 hours (15-minute bins) or 7 days (2-hour bins), rows ingested and
  // scored, the backlog and its lag, the diagnosis mix over time, the alert rules and history,
  // and the worst rows of the last day in the HTML report (its drill-down) inside the page.
  // Opened as page#selftest it checks itself, for the headless-browser test.
  Result<std::string> DashboardHtml(double now);
  // What the documents lack: the newest `limit` rows (any state) stamped within `window` (as
  // SummaryJson's) grouped into intents as tala testset groups a log, and every intent nothing
  // answers (GapReader: against ServeOptions::docs, else the passages retrieved for it), most
  // asked first: {"window", "rows", "limit", "against", "questions", "intents", "by_meaning",
  // "gaps": {"questions", "share", "intents": [{"question", "questions", "share"}]}}. A reading
  // stands for a minute (ten while no row comes) for the same window and limit. kInvalidArgument
  // for an unknown window or a limit outside 1..kMaxGapRows.
  static constexpr int64_t kMaxGapRows = 20000;
  Result<std::string> GapsJson(const std::string& window, int64_t limit, double now);
  // The history page of the runs stored in this database (tala history add --store
  // http://..., tala ci with [history]), production's daily window means drawn under them.
  Result<std::string> HistoryPageHtml(const TrendOptions& options);

  struct Impl;

 private:
  explicit Service(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Seconds since the epoch from an ISO 8601 UTC text ("2026-12-04T10:00:00Z", fractions and
// +00:00 accepted) or nullopt-like failure: kInvalidArgument.
Result<double> ParseTimestamp(std::string_view text);

}  // namespace tala
