// The trace buffer of Service: OTLP spans wait in SQLite, by trace id, until their trace is
// whole, and then become one row. An SDK exports spans as they end, in batches of its own
// timing, so the retrieval span, the model call and the root often reach the server in
// different requests; mapping each request on its own lost the documents of those traces.
// Spans are committed before the request is answered, so kill -9 keeps them; a restart closes
// the traces whose linger passed while it was down.

#include <sqlite3.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "serve/otlp.h"
#include "serve/service_impl.h"

namespace tala {

namespace {

constexpr const char* kTraceSchema =
    "CREATE TABLE IF NOT EXISTS trace_spans (seq INTEGER PRIMARY KEY, trace_id TEXT NOT NULL,"
    "  body TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS trace_spans_trace ON trace_spans (trace_id, seq);"
    // One line per open trace: when its last span came, and whether its root has ended.
    "CREATE TABLE IF NOT EXISTS open_traces (trace_id TEXT PRIMARY KEY, last_seen REAL NOT NULL,"
    "  root_ended INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS open_traces_seen ON open_traces (last_seen);";

void CountDropped(Service::Impl& s, const std::string& reason, int64_t n) {
  if (n <= 0) return;
  std::lock_guard<std::mutex> stats(s.stats_mu);
  s.traces_dropped[reason] += n;
}

}  // namespace

Status OpenTraceBuffer(Service::Impl& s) {
  TALA_RETURN_IF_ERROR(s.Exec(kTraceSchema));
  Stmt count(s.db, "SELECT COUNT(*) FROM open_traces");
  if (count && count.Step()) s.open_traces = sqlite3_column_int64(count.get(), 0);
  return OkStatus();
}

int64_t Service::open_traces() const { return impl_->open_traces.load(); }

Result<IngestAnswer> Service::IngestTraces(std::string_view body, double now, bool protobuf) {
  Impl& s = *impl_;
  TALA_ASSIGN_OR_RETURN(std::vector<serve::OtlpSpan> spans, serve::OtlpSpans(body, protobuf));
  IngestAnswer answer;
  std::map<std::string, std::vector<const serve::OtlpSpan*>> by_trace;
  std::vector<std::string> order;
  for (const serve::OtlpSpan& span : spans) {
    auto& list = by_trace[span.trace_id];
    if (list.empty()) order.push_back(span.trace_id);
    list.push_back(&span);
  }
  int64_t late = 0, full = 0;
  std::lock_guard<std::mutex> lock(s.mu);
  if (Status begun = s.Exec("BEGIN IMMEDIATE"); !begun.ok()) {
    return Status(ErrorCode::kUnavailable, "cannot store spans now: " + begun.message());
  }
  // A trace that became a row, or a turn still waiting for its conversation.
  Stmt made(s.db,
            "SELECT 1 FROM rows WHERE id = ?1 UNION ALL SELECT 1 FROM session_turns WHERE "
            "turn_id = ?1 LIMIT 1");
  Stmt open(s.db, "SELECT 1 FROM open_traces WHERE trace_id = ?1");
  Stmt insert(s.db, "INSERT INTO trace_spans (trace_id, body) VALUES (?1, ?2)");
  Stmt seen(s.db,
            "INSERT INTO open_traces (trace_id, last_seen, root_ended) VALUES (?1, ?2, ?3) "
            "ON CONFLICT (trace_id) DO UPDATE SET last_seen = MAX(last_seen, excluded.last_seen),"
            " root_ended = MAX(root_ended, excluded.root_ended)");
  int64_t opened = 0;
  auto fail = [&](const char* what) {
    std::string message = sqlite3_errmsg(s.db);
    (void)s.Exec("ROLLBACK");
    return Status(ErrorCode::kUnavailable, std::string(what) + message);
  };
  for (const std::string& id : order) {
    const auto& list = by_trace[id];
    open.Text(1, id);
    const bool is_open = open.Step();
    open.Reset();
    if (!is_open) {
      // Spans of a trace that has become a row already (they came after its linger) cannot
      // change it: refused, so the exporter hears of it in partialSuccess.
      made.Text(1, id);
      const bool is_row = made.Step();
      made.Reset();
      if (is_row) {
        ++late;
        answer.skipped += static_cast<int64_t>(list.size());
        continue;
      }
      if (s.open_traces + opened >= s.options.max_open_traces) {
        ++full;
        answer.skipped += static_cast<int64_t>(list.size());
        continue;
      }
      ++opened;
    }
    bool root_ended = false;
    for (const serve::OtlpSpan* span : list) {
      insert.Text(1, id);
      insert.Text(2, span->piece);
      if (insert.Done() != SQLITE_DONE) return fail("cannot store the spans: ");
      insert.Reset();
      root_ended = root_ended || span->root_ended;
      ++answer.accepted;
    }
    seen.Text(1, id);
    seen.Real(2, now);
    seen.Int(3, root_ended ? 1 : 0);
    if (seen.Done() != SQLITE_DONE) return fail("cannot store the spans: ");
    seen.Reset();
    answer.ids.push_back(id);
  }
  // Committed (and synced) before the exporter is told its spans are taken.
  if (Status committed = s.Exec("COMMIT"); !committed.ok()) {
    (void)s.Exec("ROLLBACK");
    return Status(ErrorCode::kUnavailable, "cannot store the spans: " + committed.message());
  }
  s.open_traces += opened;
  CountDropped(s, "late_spans", late);
  CountDropped(s, "too_many_open_traces", full);
  if (late > 0) {
    answer.why_skipped = std::to_string(late) +
                         " traces had become rows before these spans came (raise "
                         "--trace-linger)";
  }
  if (full > 0) {
    answer.why_skipped += std::string(answer.why_skipped.empty() ? "" : "; ") +
                          std::to_string(full) + " traces refused: --max-open-traces (" +
                          std::to_string(s.options.max_open_traces) + ") traces are open";
  }
  return answer;
}

Result<int64_t> Service::FlushTraces(double now, int max_traces) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.open_traces == 0) return int64_t{0};
  // Whole: the root has ended and nothing came for the linger; or nothing came for the
  // timeout (a root that never comes: an instrumented service below another's root span).
  Stmt due(s.db,
           "SELECT trace_id FROM open_traces WHERE (root_ended = 1 AND last_seen <= ?1) OR "
           "last_seen <= ?2 ORDER BY last_seen LIMIT ?3");
  due.Real(1, now - s.options.trace_linger);
  due.Real(2, now - s.options.trace_timeout);
  due.Int(3, max_traces);
  std::vector<std::string> ids;
  while (due.Step()) ids.push_back(due.Column(0));
  if (ids.empty()) return int64_t{0};
  Stmt pieces(s.db, "SELECT body FROM trace_spans WHERE trace_id = ?1 ORDER BY seq");
  std::vector<Incoming> rows;
  int64_t unmapped = 0, invalid = 0;
  for (const std::string& id : ids) {
    std::string request = "{\"resourceSpans\":[";
    pieces.Text(1, id);
    bool first = true;
    while (pieces.Step()) {
      if (!first) request += ',';
      request += pieces.Column(0);
      first = false;
    }
    pieces.Reset();
    request += "]}";
    auto mapped = serve::OtlpToRows(request);
    if (!mapped || mapped->jsonl.empty()) {
      ++unmapped;
      continue;
    }
    // The row's own checks (a text too long, say) drop the trace, not the others.
    auto parsed = ParseRows(s, mapped->jsonl, now);
    if (!parsed) {
      ++invalid;
      std::fprintf(stderr, "tala serve: trace %s dropped: %s\n", id.c_str(),
                   parsed.error().ToString().c_str());
      continue;
    }
    for (Incoming& in : *parsed) rows.push_back(std::move(in));
  }
  TALA_ASSIGN_OR_RETURN(IngestAnswer stored,
                        StoreInPlaceOf(s, rows, now, ids,
                                       {"DELETE FROM trace_spans WHERE trace_id = ?1",
                                        "DELETE FROM open_traces WHERE trace_id = ?1"},
                                       "trace"));
  CountDropped(s, "late_spans", stored.duplicates);
  s.open_traces -= static_cast<int64_t>(ids.size());
  {
    std::lock_guard<std::mutex> stats(s.stats_mu);
    s.traces_received += static_cast<int64_t>(ids.size());
  }
  CountDropped(s, "no_question_or_answer", unmapped);
  CountDropped(s, "invalid_row", invalid);
  return static_cast<int64_t>(ids.size());
}

}  // namespace tala
