#pragma once
// The insides of tala::Service (include/tala/serve.h), shared by its two files: service.cc
// (ingest and scoring) and service_summary.cc (windows and Prometheus text). The only other
// file besides runtime/cache.cc that includes sqlite3.h.

#include <sqlite3.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm_setup.h"
#include "tala/judge.h"
#include "tala/metric.h"
#include "tala/serve.h"

namespace tala {

// RAII for one prepared statement.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  sqlite3_stmt* get() const { return s_; }
  explicit operator bool() const { return s_ != nullptr; }
  void Text(int i, std::string_view v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void Real(int i, double v) { sqlite3_bind_double(s_, i, v); }
  void Int(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  bool Step() { return sqlite3_step(s_) == SQLITE_ROW; }
  int Done() { return sqlite3_step(s_); }
  std::string Column(int i) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, i));
    return p ? std::string(p, sqlite3_column_bytes(s_, i)) : std::string();
  }
  void Reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }

 private:
  sqlite3_stmt* s_ = nullptr;
};

struct Service::Impl {
  ServeOptions options;
  sqlite3* db = nullptr;
  mutable std::mutex mu;  // guards db and pending
  int64_t pending = 0;
  std::vector<std::unique_ptr<Metric>> metrics;
  std::unique_ptr<Judge> judge;  // offline or replay
  std::optional<LlmSetup> llm;   // openai:... or anthropic:...
  std::mutex score_mu;           // one scoring pass at a time (the judge is not thread-safe)

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
