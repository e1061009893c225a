#include <simdjson.h>
#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <map>
#include <mutex>

#include "analysis/diagnosis.h"
#include "core/hash.h"
#include "core/turn_question.h"
#include "engine/row_scorer.h"
#include "fs/output_paths.h"
#include "io/readers/row_parser.h"
#include "io/writers/json_text.h"
#include "io/writers/results_jsonl_writer.h"
#include "judges/registry.h"
#include "judges/task_plan.h"
#include "metrics/registry.h"
#include "serve/service_impl.h"
#include "tala/serve.h"

namespace tala {

namespace {

// Rows as received (the request's JSON line), their time, tags and state; one row of scores per
// (row, metric) with a value, for the window queries.
constexpr const char* kSchema =
    // Freed pages go back to the file system in steps (Prune); only a new file takes this.
    "PRAGMA auto_vacuum=INCREMENTAL;"
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=FULL;"
    "CREATE TABLE IF NOT EXISTS rows ("
    "  seq INTEGER PRIMARY KEY, id TEXT NOT NULL, ts REAL NOT NULL, tags TEXT NOT NULL,"
    "  body TEXT NOT NULL, sampled INTEGER NOT NULL,"
    "  state TEXT NOT NULL,"  // pending | scored | failed | unsampled
    "  diagnosis TEXT, result TEXT);"
    "CREATE INDEX IF NOT EXISTS rows_ts ON rows (ts);"
    "CREATE INDEX IF NOT EXISTS rows_id ON rows (id);"
    "CREATE INDEX IF NOT EXISTS rows_pending ON rows (state, seq);"
    "CREATE TABLE IF NOT EXISTS scores ("
    "  seq INTEGER NOT NULL, metric TEXT NOT NULL, value REAL NOT NULL, ts REAL NOT NULL,"
    "  PRIMARY KEY (seq, metric));"
    "CREATE INDEX IF NOT EXISTS scores_ts ON scores (metric, ts);"
    // What each scoring batch cost in judge calls: the daily budget and /metrics read it.
    "CREATE TABLE IF NOT EXISTS judge_spend (at REAL NOT NULL, calls INTEGER NOT NULL,"
    "  cost REAL NOT NULL);"
    // People's labels (POST /v1/labels): a row's value per metric and reviewer.
    "CREATE TABLE IF NOT EXISTS labels (id TEXT NOT NULL, metric TEXT NOT NULL,"
    "  labeller TEXT NOT NULL, value REAL NOT NULL, pick_probability REAL, at REAL NOT NULL,"
    "  PRIMARY KEY (id, metric, labeller));";

// In the sample: the top 52 bits of the id's hash (exact in a double), as a number in [0, 1),
// below the share.
bool Sampled(const std::string& id, double share) {
  if (share >= 1) return true;
  if (share <= 0) return false;
  return static_cast<double>(Sha256Prefix64(id) >> 12) / 4503599627370496.0 < share;
}

}  // namespace

Result<double> ParseTimestamp(std::string_view text) {
  std::tm tm{};
  int year, month, day, hour, minute;
  double second = 0;
  char rest[16] = {0};
  std::string t(text);
  int n = std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%15s", &year, &month, &day, &hour, &minute,
                      &second, rest);
  std::string zone(rest);
  if (n < 6 || (n == 7 && zone != "Z" && zone != "+00:00") || month < 1 || month > 12 || day < 1 ||
      day > 31 || hour > 23 || minute > 59 || second < 0 || second >= 61) {
    return InvalidArgument("timestamp \"" + t +
                           "\": expected ISO 8601 UTC such as 2026-12-04T10:00:00Z, or seconds "
                           "since the epoch");
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  double whole = std::floor(second);
  tm.tm_sec = static_cast<int>(whole);
  return static_cast<double>(timegm(&tm)) + (second - whole);
}

Service::Service(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Service::~Service() = default;

const std::vector<std::string>& Service::warnings() const { return impl_->warnings; }

Result<std::unique_ptr<Service>> Service::Open(const ServeOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (!(options.sample >= 0 && options.sample <= 1)) {
    return InvalidArgument("--sample must be a share between 0 and 1");
  }
  for (const auto& [tag, share] : options.sample_by_tag) {
    if (tag.find('=') == std::string::npos || !(share >= 0 && share <= 1)) {
      return InvalidArgument("sample override \"" + tag +
                             "\": expected KEY=VALUE with a share "
                             "between 0 and 1");
    }
  }
  if (options.max_pending < static_cast<int64_t>(options.max_rows_per_request) &&
      options.sample > 0) {
    // Such a request could never be taken, however often it was retried.
    return InvalidArgument("--max-pending (" + std::to_string(options.max_pending) +
                           ") must be at least --max-rows-per-request (" +
                           std::to_string(options.max_rows_per_request) + ")");
  }
  TALA_ASSIGN_OR_RETURN(auto specs, metrics::ParseMetricSpecs(options.metrics));
  metrics::ApplyRubric(specs, options.rubrics);
  TALA_ASSIGN_OR_RETURN(impl->metrics, metrics::CreateMetrics(specs, options.user_metrics));
  TALA_ASSIGN_OR_RETURN(GapReader gaps, GapReader::Open(options.docs));
  impl->gap_reader.emplace(std::move(gaps));
  const bool llm = IsLlmJudge(options.judge);
  if (llm && options.llm.cache != "off") {
    TALA_RETURN_IF_ERROR(fs::CheckOutputsDistinct({}, {{"--db", options.db},
                                                       {"--db's journal", options.db + "-wal"},
                                                       {"--cache", options.llm.cache}}));
  }
  if (options.lock_db) {
    TALA_ASSIGN_OR_RETURN(impl->db_lock, fs::FileLock::Acquire(options.db));
  }
  if (llm) {
    TALA_ASSIGN_OR_RETURN(impl->llm, SetUpLlm(options.judge, options.llm, &impl->warnings));
  } else {
    TALA_ASSIGN_OR_RETURN(impl->judge, judges::CreateJudge(options.judge, options.offline_blend));
  }
  if (sqlite3_open(options.db.c_str(), &impl->db) != SQLITE_OK) {
    return IoError("cannot open " + options.db + ": " + sqlite3_errmsg(impl->db));
  }
  sqlite3_busy_timeout(impl->db, 5000);
  TALA_RETURN_IF_ERROR(impl->Exec(kSchema));
  TALA_RETURN_IF_ERROR(CreateAlertTables(*impl));
  for (const AlertRule& rule : options.alerts) {
    bool known = false;
    for (const auto& m : impl->metrics) known = known || m->key() == rule.metric;
    if (!known) {
      return InvalidArgument("alert \"" + rule.text + "\": " + rule.metric +
                             " is not among the served metrics (" + options.metrics + ")");
    }
  }
  Stmt count(impl->db, "SELECT COUNT(*), MAX(seq) FROM rows WHERE state = 'pending'");
  if (count && count.Step()) impl->pending = sqlite3_column_int64(count.get(), 0);
  impl->started = static_cast<double>(std::time(nullptr));
  // Rows left waiting by the last run: their lag counts from this start.
  if (impl->pending > 0) {
    impl->waiting_since.push_back({sqlite3_column_int64(count.get(), 1), impl->started});
  }
  if (!(options.trace_linger >= 0) || !(options.trace_timeout >= options.trace_linger)) {
    return InvalidArgument(
        "--trace-linger must be at least 0 and --trace-timeout at least "
        "--trace-linger");
  }
  if (options.max_open_traces < 1) return InvalidArgument("--max-open-traces must be at least 1");
  if (!(options.session_quiet >= 0)) {
    return InvalidArgument("--session-quiet must be a number of seconds, at least 0");
  }
  TALA_RETURN_IF_ERROR(OpenTraceBuffer(*impl));
  TALA_RETURN_IF_ERROR(OpenSessionBuffer(*impl));
  for (const std::string& key : options.tag_keys) {
    if (key.empty() || key.find_first_of("=\"\\") != std::string::npos) {
      return InvalidArgument("tag key \"" + key + "\": a tag's name, without '=' or quotes");
    }
  }
  if (options.max_tag_values < 1) return InvalidArgument("max_tag_values must be at least 1");
  impl->agg = std::make_unique<serve::Aggregates>(options.tag_keys, options.max_tag_values);
  TALA_RETURN_IF_ERROR(impl->agg->Open(impl->db));
  Stmt spend(impl->db, "SELECT TOTAL(calls), TOTAL(cost) FROM judge_spend");
  if (spend && spend.Step()) {
    impl->judge_calls = sqlite3_column_double(spend.get(), 0);
    impl->judge_cost = sqlite3_column_double(spend.get(), 1);
  }
  return std::unique_ptr<Service>(new Service(std::move(impl)));
}

int64_t Service::pending() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->pending;
}

namespace {

// One line of a request: the dataset's row checks, then timestamp and tags.
Result<Incoming> ParseIncoming(simdjson::dom::element row, std::string_view line, int64_t line_no,
                               double now, const ServeOptions& options) {
  double share = options.sample;
  static const std::string kRequest = "request";
  TALA_ASSIGN_OR_RETURN(Sample sample, io::ParseRow(row, {kRequest, line_no, line_no}));
  Incoming in;
  // A row without an id gets one from its content, before sampling: its line in the request
  // would give every such row the same id ("1"), and so a share of 0% or 100%. A retried
  // request then carries the same ids, and is stored once.
  in.id = sample.id_generated ? "sha256:" + Sha256Hex(line).substr(0, 24) : sample.id;
  in.body = std::string(line);
  in.ts = now;
  simdjson::dom::element e;
  if (!row["timestamp"].get(e)) {
    double seconds = 0;
    std::string_view text;
    if (!e.get_double().get(seconds)) {
      in.ts = seconds;
    } else if (!e.get_string().get(text)) {
      auto parsed = ParseTimestamp(text);
      if (!parsed) return DataError({kRequest, line_no, 0, "timestamp"}, parsed.error().message());
      in.ts = *parsed;
    } else {
      return DataError({kRequest, line_no, 0, "timestamp"},
                       "expected an ISO 8601 text or seconds since the epoch");
    }
    // A row stamped far ahead would sit outside every window and alert, and no retention would
    // ever reach it (R5: Date.now()'s milliseconds put rows in the year 58,900).
    constexpr double kDay = 86400;
    if (!std::isfinite(in.ts) || in.ts > now + kDay || in.ts < 0) {
      return DataError(
          {kRequest, line_no, 0, "timestamp"},
          in.ts > now + kDay && in.ts / 1000 <= now + kDay
              ? "more than a day in the future: epoch milliseconds? send seconds since the epoch"
              : "expected a time no later than a day from now and not before 1970");
    }
  }
  if (!row["tags"].get(e)) {
    simdjson::dom::object tags;
    if (e.get_object().get(tags)) {
      return DataError({kRequest, line_no, 0, "tags"}, "expected an object of strings");
    }
    bool overridden = false;
    for (auto [key, value] : tags) {
      if (!value.is_string()) {
        return DataError({kRequest, line_no, 0, "tags." + std::string(key)}, "expected a string");
      }
      // The first override naming one of the row's tags sets its share.
      for (const auto& [tag, tag_share] : options.sample_by_tag) {
        if (overridden) break;
        std::string pair = std::string(key) + "=" + std::string(value.get_string().value());
        if (tag == pair) {
          share = tag_share;
          overridden = true;
        }
      }
    }
    in.tags = simdjson::minify(e);
  }
  in.sampled = Sampled(in.id, share);
  for (const Message& m : sample.messages) in.turns += IsAnswer(m) ? 1 : 0;
  // A turn of a conversation: kept until its conversation is quiet (session_buffer.cc).
  if (!row["conversation_id"].get(e)) {
    if (e.is_string()) {
      in.session = std::string(e.get_string().value());
    } else if (e.is_int64()) {
      in.session = std::to_string(int64_t(e));
    }
    if (in.session.empty()) {
      return DataError({kRequest, line_no, 0, "conversation_id"},
                       "expected a non-empty string or an integer naming the conversation");
    }
    if (sample.is_multi_turn()) {
      return DataError({kRequest, line_no, 0, "user_input"},
                       "a turn row's user_input is the turn's question (a string), not a list "
                       "of messages; send the conversation as one row, or one row per turn");
    }
    in.order = in.ts;
    if (!row["turn"].get(e)) {
      if (!e.is_number() || !std::isfinite(double(e))) {
        return DataError({kRequest, line_no, 0, "turn"},
                         "expected a number (the turn's place in its conversation)");
      }
      in.order = double(e);
    }
  }
  return in;
}

}  // namespace

Result<std::vector<Incoming>> ParseRows(const Service::Impl& s, std::string_view body, double now) {
  std::vector<Incoming> rows;
  simdjson::dom::parser parser;
  simdjson::padded_string padded(body);
  // One JSON object, or JSON Lines: either way each line holding a row is parsed on its own
  // (a pretty-printed single object is parsed whole).
  std::vector<std::pair<std::string_view, int64_t>> lines;
  std::string_view all(padded.data(), padded.size());
  size_t first = all.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    return DataError({"request", 0, 0, ""}, "the body holds no rows");
  }
  simdjson::dom::element whole;
  if (!parser.parse(padded).get(whole) && whole.is_object()) {
    lines.push_back({all.substr(first), 1});
  } else {
    int64_t line_no = 0;
    size_t at = 0;
    while (at <= all.size()) {
      size_t nl = all.find('\n', at);
      std::string_view line = all.substr(at, nl == std::string_view::npos ? all.npos : nl - at);
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.find_first_not_of(" \t") != std::string_view::npos) lines.push_back({line, line_no});
      if (nl == std::string_view::npos) break;
      at = nl + 1;
    }
  }
  if (lines.size() > s.options.max_rows_per_request) {
    return InvalidArgument("the request holds " + std::to_string(lines.size()) + " rows; at most " +
                           std::to_string(s.options.max_rows_per_request) + " per request");
  }
  for (const auto& [line, line_no] : lines) {
    simdjson::dom::element row;
    if (auto err = parser.parse(line.data(), line.size()).get(row)) {
      return io::JsonSyntaxError(err, "request", line_no);
    }
    TALA_ASSIGN_OR_RETURN(Incoming in, ParseIncoming(row, line, line_no, now, s.options));
    rows.push_back(std::move(in));
  }
  return rows;
}

Result<IngestAnswer> StoreRows(Service::Impl& s, const std::vector<Incoming>& rows, double now,
                               const std::function<Status()>& also) {
  int64_t sampled = 0;
  for (const Incoming& in : rows) sampled += in.sampled ? 1 : 0;
  if (Status begun = s.Exec("BEGIN IMMEDIATE"); !begun.ok()) {
    return Status(ErrorCode::kUnavailable, "cannot store rows now: " + begun.message());
  }
  // An id already stored (a retried request, a repeated trace) is stored once: the repeat is
  // acknowledged and counted, not stored or scored again.
  Stmt insert(s.db,
              "INSERT INTO rows (id, ts, tags, body, sampled, state) SELECT ?1, ?2, ?3, ?4, ?5, "
              "?6 WHERE NOT EXISTS (SELECT 1 FROM rows WHERE id = ?1)");
  // A repeated id whose row differs is a conflict (R7: a client reusing a conversation id for
  // each turn lost its turns silently): still stored once, but counted and logged.
  Stmt stored_body(s.db, "SELECT body FROM rows WHERE id = ?1 LIMIT 1");
  IngestAnswer answer;
  serve::AggDelta delta;
  int64_t sessions_opened = 0, turns_stored = 0, last_row = 0;
  for (const Incoming& in : rows) {
    if (!in.session.empty()) {
      // A turn waits for the rest of its conversation (session_buffer.cc).
      bool opened = false;
      auto stored = StoreTurn(s, in, now, opened);
      if (!stored) {
        (void)s.Exec("ROLLBACK");
        return Status(ErrorCode::kUnavailable, stored.error().message());
      }
      answer.ids.push_back(in.id);
      if (!*stored) ++answer.duplicates;
      turns_stored += *stored ? 1 : 0;
      sessions_opened += opened ? 1 : 0;
      if (in.sampled) --sampled;  // sampled as a conversation, when it becomes a row
      continue;
    }
    insert.Text(1, in.id);
    insert.Real(2, in.ts);
    insert.Text(3, in.tags);
    insert.Text(4, in.body);
    insert.Int(5, in.sampled ? 1 : 0);
    insert.Text(6, in.sampled ? "pending" : "unsampled");
    if (insert.Done() != SQLITE_DONE) {
      std::string message = sqlite3_errmsg(s.db);
      (void)s.Exec("ROLLBACK");
      // A full disk or a locked file: nothing was stored, and the client should retry.
      return Status(ErrorCode::kUnavailable, "cannot store the rows: " + message);
    }
    insert.Reset();
    answer.ids.push_back(in.id);
    if (sqlite3_changes(s.db) != 0) last_row = sqlite3_last_insert_rowid(s.db);
    if (sqlite3_changes(s.db) == 0) {
      ++answer.duplicates;
      stored_body.Text(1, in.id);
      if (stored_body.Step() && stored_body.Column(0) != in.body) {
        ++answer.conflicts;
        if (answer.conflict_ids.size() < 5) answer.conflict_ids.push_back(in.id);
      }
      stored_body.Reset();
      if (in.sampled) --sampled;
      serve::Aggregates::Duplicate(delta, now);
    } else {
      serve::Aggregates::Ingested(delta, in.ts, s.agg->TagsOf(in.tags, delta), in.sampled,
                                  in.turns);
    }
  }
  if (Status staged = serve::Aggregates::Stage(s.db, delta); !staged.ok()) {
    (void)s.Exec("ROLLBACK");
    return Status(ErrorCode::kUnavailable, staged.message());
  }
  if (also) {
    if (Status done = also(); !done.ok()) {
      (void)s.Exec("ROLLBACK");
      return Status(ErrorCode::kUnavailable, done.message());
    }
  }
  // Committed (and synced) before the caller acknowledges anything.
  if (Status committed = s.Exec("COMMIT"); !committed.ok()) {
    (void)s.Exec("ROLLBACK");
    return Status(ErrorCode::kUnavailable, "cannot store the rows: " + committed.message());
  }
  s.agg->Apply(delta);
  answer.accepted = static_cast<int64_t>(rows.size());
  answer.sampled = sampled;
  s.pending += sampled;
  answer.turns_held = turns_stored;
  s.open_sessions += sessions_opened;
  s.open_turns += turns_stored;
  if (sampled > 0) {
    // Rows up to this seq were received now: what the scoring lag is measured from.
    std::lock_guard<std::mutex> stats(s.stats_mu);
    s.waiting_since.push_back({last_row, now});
  }
  return answer;
}

Result<IngestAnswer> StoreInPlaceOf(Service::Impl& s, const std::vector<Incoming>& rows, double now,
                                    const std::vector<std::string>& ids,
                                    const std::vector<const char*>& deletes, const char* what) {
  auto remove = [&]() -> Status {
    std::vector<std::unique_ptr<Stmt>> statements;
    for (const char* sql : deletes) statements.push_back(std::make_unique<Stmt>(s.db, sql));
    for (const std::string& id : ids) {
      for (auto& statement : statements) {
        statement->Text(1, id);
        if (statement->Done() != SQLITE_DONE) {
          return IoError(std::string("cannot close a ") + what + ": " + sqlite3_errmsg(s.db));
        }
        statement->Reset();
      }
    }
    return OkStatus();
  };
  if (!rows.empty()) return StoreRows(s, rows, now, remove);
  TALA_RETURN_IF_ERROR(s.Exec("BEGIN IMMEDIATE"));
  if (Status removed = remove(); !removed.ok()) {
    (void)s.Exec("ROLLBACK");
    return removed;
  }
  TALA_RETURN_IF_ERROR(s.Exec("COMMIT"));
  return IngestAnswer{};
}

Result<IngestAnswer> Service::Ingest(std::string_view body, double now) {
  TALA_ASSIGN_OR_RETURN(std::vector<Incoming> rows, ParseRows(*impl_, body, now));
  // The database is the queue: a scoring backlog never refuses a row (an exporter that gets a
  // 503 may drop it); the scorer skips the oldest rows past --max-pending, and counts them.
  std::lock_guard<std::mutex> lock(impl_->mu);
  return StoreRows(*impl_, rows, now, nullptr);
}

Result<int64_t> Service::Prune(double now, int64_t max_rows) {
  Impl& s = *impl_;
  const ServeOptions& o = s.options;
  if (o.retain_days <= 0 && o.max_db_bytes <= 0) return int64_t{0};
  std::lock_guard<std::mutex> lock(s.mu);
  auto pragma = [&](const char* sql) {
    Stmt q(s.db, sql);
    return q.Step() ? sqlite3_column_int64(q.get(), 0) : 0;
  };
  // What to delete: past the age, else (over the size) the oldest; never a row still waiting.
  std::string where;
  if (o.retain_days > 0) {
    where = "ts < " + std::to_string(now - o.retain_days * 86400);
  }
  int64_t limit = max_rows;
  if (o.max_db_bytes > 0) {
    const int64_t live = (pragma("PRAGMA page_count") - pragma("PRAGMA freelist_count")) *
                         pragma("PRAGMA page_size");
    if (live > o.max_db_bytes) {
      // The oldest rows, whatever their age: as many as the excess holds at the average row's
      // size (the seq range counts the rows without reading them), so a batch does not
      // overshoot the limit.
      const int64_t rows =
          std::max<int64_t>(1, pragma("SELECT COALESCE(MAX(seq) - MIN(seq) + 1, 0) FROM rows"));
      const double per_row = static_cast<double>(live) / static_cast<double>(rows);
      limit = std::min<int64_t>(
          max_rows, static_cast<int64_t>(std::ceil((live - o.max_db_bytes) / per_row)) + 1);
      where = "1";
    }
  }
  if (where.empty()) return int64_t{0};
  TALA_RETURN_IF_ERROR(s.Exec("BEGIN IMMEDIATE"));
  // The rows chosen, in a temporary table: their scores go first, then the rows.
  (void)s.Exec(
      "CREATE TEMP TABLE IF NOT EXISTS doomed (seq INTEGER PRIMARY KEY); DELETE FROM doomed;");
  std::string choose = "INSERT INTO doomed SELECT seq FROM rows WHERE state != 'pending' AND (" +
                       where + ") ORDER BY seq LIMIT " + std::to_string(limit);
  Status chosen = s.Exec(choose.c_str());
  if (chosen.ok()) chosen = s.Exec("DELETE FROM scores WHERE seq IN (SELECT seq FROM doomed)");
  if (chosen.ok()) chosen = s.Exec("DELETE FROM rows WHERE seq IN (SELECT seq FROM doomed)");
  if (!chosen.ok()) {
    (void)s.Exec("ROLLBACK");
    return chosen;
  }
  const int64_t deleted = sqlite3_changes(s.db);
  TALA_RETURN_IF_ERROR(s.Exec("COMMIT"));
  {
    std::lock_guard<std::mutex> stats(s.stats_mu);
    s.deleted += deleted;
  }
  if (deleted > 0) (void)s.Exec("PRAGMA incremental_vacuum");
  return deleted;
}

}  // namespace tala
