#pragma once
// The insides of tala::Service (include/tala/serve.h), shared by its two files: service.cc
// (ingest and scoring) and service_summary.cc (windows and Prometheus text). The only other
// file besides runtime/cache.cc and runtime/sql_statement.h that includes sqlite3.h.

#include <sqlite3.h>

#include <array>
#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/llm_setup.h"
#include "fs/file_lock.h"
#include "runtime/sql_statement.h"
#include "serve/aggregates.h"
#include "tala/judge.h"
#include "tala/metric.h"
#include "tala/serve.h"
#include "tala/testset.h"

namespace tala {

using Stmt = runtime::SqlStatement;

struct Service::Impl {
  ServeOptions options;
  fs::FileLock db_lock;  // held for the Service's life (ServeOptions::lock_db)
  std::vector<std::string> warnings;
  sqlite3* db = nullptr;
  mutable std::mutex mu;  // guards db and pending
  int64_t pending = 0;
  std::vector<std::unique_ptr<Metric>> metrics;
  std::unique_ptr<Judge> judge;  // offline or replay
  std::optional<LlmSetup> llm;   // openai:... or anthropic:...
  std::mutex score_mu;           // one scoring pass at a time (the judge is not thread-safe)
  std::unique_ptr<serve::Aggregates> agg;  // what windows and /metrics read (own lock)
  // Judge spend and HTTP requests, for /metrics without the database (guarded by stats_mu).
  std::mutex stats_mu;
  double judge_calls = 0, judge_cost = 0;
  // Judge tokens since the start: prompt tokens the provider's prompt cache did not serve, that
  // it served, that were written to it; completion tokens (guarded by stats_mu).
  int64_t judge_prompt_uncached = 0, judge_prompt_cache_read = 0, judge_prompt_cache_write = 0;
  int64_t judge_completion_tokens = 0;
  struct HttpSeries {
    int64_t count = 0;
    double seconds = 0;
    std::array<int64_t, 12> buckets{};  // kHttpBuckets, then +Inf; not cumulative
  };
  std::map<std::pair<std::string, int>, int64_t> http_requests;  // (route, status) -> count
  std::map<std::string, HttpSeries> http_durations;              // route -> durations
  double started = 0;                                            // epoch seconds
  int64_t deleted = 0;  // rows removed by retention since the start (guarded by stats_mu)
  std::map<std::string, bool> firing;  // alert rule -> firing now (guarded by stats_mu)
  // OTLP traces received and dropped, by reason (guarded by stats_mu; since the start).
  int64_t traces_received = 0;
  std::map<std::string, int64_t> traces_dropped;
  // When sampled rows were received, as (the last seq of an ingest, its time), oldest first;
  // marks whose rows are all scored are dropped. The scoring lag is the age of the first.
  // Guarded by stats_mu.
  std::deque<std::pair<int64_t, double>> waiting_since;
  // Traces whose spans wait in the trace buffer (changed under mu, read without it).
  std::atomic<int64_t> open_traces{0};
  // Conversations whose turns wait in the session buffer, and their turns (the same).
  std::atomic<int64_t> open_sessions{0}, open_turns{0};
  // What the documents lack (GapsJson): the reader (its documents read at Open), and the last
  // answer with what it was read from (window/limit, the newest row, when), so the dashboard's
  // refresh and repeated requests do not group the same rows again. One reading at a time
  // (gaps_mu, which guards these), outside mu.
  std::optional<GapReader> gap_reader;
  std::mutex gaps_mu;
  std::string gaps_key, gaps_json;
  int64_t gaps_seq = 0;
  double gaps_at = 0;

  ~Impl() {
    if (db != nullptr) sqlite3_close(db);
  }
  Status Exec(const char* sql) {
    char* error = nullptr;
    int rc = sqlite3_exec(db, sql, nullptr, nullptr, &error);
    std::string message = error ? error : "";
    sqlite3_free(error);
    return rc == SQLITE_OK ? OkStatus() : IoError(options.db + ": " + message);
  }
};

// A row of a request, checked and stamped, ready to store.
struct Incoming {
  std::string id, tags = "{}", body;
  double ts = 0;
  bool sampled = false;
  // A turn of a conversation (the row's conversation_id): it waits in the session buffer, and
  // its conversation becomes one row once quiet (session_buffer.cc). `order` places it among
  // its conversation's turns: its `turn`, else its timestamp.
  std::string session;
  double order = 0;
  int64_t turns = 0;  // a conversation row's answered turns (0: not a conversation)
};
// Checks every row of `body` (one JSON object or JSON Lines) as Service::Ingest describes.
Result<std::vector<Incoming>> ParseRows(const Service::Impl& impl, std::string_view body,
                                        double now);
// Stores `rows` in one transaction (an id already stored is counted as a duplicate), with
// `also` (when set) run inside the same transaction before it commits. REQUIRES: impl.mu held.
Result<IngestAnswer> StoreRows(Service::Impl& impl, const std::vector<Incoming>& rows, double now,
                               const std::function<Status()>& also);
// A buffer's items becoming rows: stores `rows` (StoreRows; none: nothing) and runs each of
// `deletes` (SQL with ?1 an item's id) for every id of `ids`, in one transaction, so a crash
// between the two can neither store an item twice nor lose it. `what` names the item in errors
// ("trace"). REQUIRES: impl.mu held.
Result<IngestAnswer> StoreInPlaceOf(Service::Impl& impl, const std::vector<Incoming>& rows,
                                    double now, const std::vector<std::string>& ids,
                                    const std::vector<const char*>& deletes, const char* what);
// Drops the scoring-lag marks of rows no longer waiting. REQUIRES: impl.mu held.
void ForgetScored(Service::Impl& impl);
// Creates the trace buffer's tables and counts the open traces. REQUIRES: impl.db open.
Status OpenTraceBuffer(Service::Impl& impl);
// Creates the session buffer's tables and counts the open conversations. REQUIRES: impl.db open.
Status OpenSessionBuffer(Service::Impl& impl);
// Stores a turn row (`in.session` set) in the session buffer: true when it is new (a repeated
// turn id of the conversation is stored once), `opened` true when it opened its conversation.
// REQUIRES: impl.mu held, inside StoreRows' transaction.
Result<bool> StoreTurn(Service::Impl& impl, const Incoming& in, double now, bool& opened);

// A named window of the options, or "90m", "1h", "7d", "3600".
Result<int64_t> WindowSeconds(const ServeOptions& o, const std::string& window);
// A metric's count and sum over the rows stamped in the minutes of [since, until], as
// /v1/summary?window= counts them (the whole minute `since` falls in, from the aggregates).
Result<std::pair<int64_t, double>> MetricTotals(Service::Impl& impl, const std::string& metric,
                                                double since, double until);
// Creates the alert tables. REQUIRES: impl.db open.
Status CreateAlertTables(Service::Impl& impl);

// A window's prediction-powered mean of `metric` (labels.cc): every scored row stamped in
// [since, until], the labelled ones corrected by their people's mean label (weighted by their
// chance of being picked when every label carries one). nullopt when no row of the window is
// labelled; `valid` false with fewer than 2 labels or rows.
struct CorrectedMean {
  bool valid = false;
  double mean = 0, low = 0, high = 0;
  int64_t labels = 0, rows = 0;
};
Result<std::optional<CorrectedMean>> CorrectedWindowMean(sqlite3* reader, const std::string& metric,
                                                         double since, double until);

}  // namespace tala
