#pragma once
// The insides of tala::Service (include/tala/serve.h), shared by its two files: service.cc
// (ingest and scoring) and service_summary.cc (windows and Prometheus text). The only other
// file besides runtime/cache.cc and runtime/sql_statement.h that includes sqlite3.h.

#include <sqlite3.h>

#include <array>
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

// A named window of the options, or "90m", "1h", "7d", "3600".
Result<int64_t> WindowSeconds(const ServeOptions& o, const std::string& window);
// A metric's count and sum over the rows stamped in [since, until]. REQUIRES: impl.mu held.
Result<std::pair<int64_t, double>> MetricTotals(Service::Impl& impl, const std::string& metric,
                                                double since, double until);
// Creates the alert tables. REQUIRES: impl.db open.
Status CreateAlertTables(Service::Impl& impl);

}  // namespace tala
