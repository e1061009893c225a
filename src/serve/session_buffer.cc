// The session buffer of Service: the turns of a conversation (rows, or OTLP traces, with a
// conversation id) wait in SQLite until none of them came for ServeOptions::session_quiet
// seconds, and then become one conversation row: the turns in order, each answer carrying its
// own passages and reference, so that conversation metrics score every turn against what it was
// generated from. A turn is committed before its request is answered (kill -9 keeps it), and
// the conversation row is stored in the same transaction that removes its turns.

#include <simdjson.h>
#include <sqlite3.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/readers/row_parser.h"
#include "serve/service_impl.h"

namespace tala {

namespace {

constexpr const char* kSessionSchema =
    "CREATE TABLE IF NOT EXISTS session_turns (seq INTEGER PRIMARY KEY,"
    "  session_id TEXT NOT NULL, turn_id TEXT NOT NULL, ord REAL NOT NULL, ts REAL NOT NULL,"
    "  tags TEXT NOT NULL, body TEXT NOT NULL, UNIQUE (session_id, turn_id));"
    // A trace's late spans are refused while its turn waits (trace_buffer.cc looks it up).
    "CREATE INDEX IF NOT EXISTS session_turns_turn ON session_turns (turn_id);"
    // One line per open conversation: when its last turn came (the server's clock).
    "CREATE TABLE IF NOT EXISTS open_sessions (session_id TEXT PRIMARY KEY,"
    "  last_seen REAL NOT NULL);"
    "CREATE INDEX IF NOT EXISTS open_sessions_seen ON open_sessions (last_seen);";

using nlohmann::ordered_json;

// The conversation row of a session's turn rows (their JSON, in order), in the dataset's
// conversation form (docs/datasets.md, Conversations). Each turn is read by the dataset's row
// parser, as it was when it came in, so its aliases (question, answer, contexts,
// ground_truths...) mean what they mean in any dataset; its replay verdicts go with its answer.
ordered_json ConversationRow(const std::string& id, const std::vector<std::string>& turns,
                             double ts, const std::string& tags) {
  static const std::string kStored = "stored turn";
  simdjson::dom::parser parser;
  ordered_json messages = ordered_json::array();
  for (const std::string& body : turns) {
    simdjson::dom::element row;
    if (parser.parse(body).get(row)) continue;  // checked when it came in; never expected
    Result<Sample> turn = io::ParseRow(row, {kStored, 0, 0});
    if (!turn) continue;
    if (turn->user_input) messages.push_back({{"type", "human"}, {"content", *turn->user_input}});
    if (!turn->response) continue;
    ordered_json ai = {{"type", "ai"}, {"content", *turn->response}};
    if (turn->retrieved_contexts) ai["retrieved_contexts"] = *turn->retrieved_contexts;
    if (turn->retrieved_context_ids) ai["retrieved_context_ids"] = *turn->retrieved_context_ids;
    if (turn->reference) ai["reference"] = *turn->reference;
    simdjson::dom::element verdicts;
    if (!row["verdicts"].get(verdicts))
      ai["verdicts"] = ordered_json::parse(simdjson::minify(verdicts));
    messages.push_back(std::move(ai));
  }
  ordered_json row = {{"id", id}, {"user_input", std::move(messages)}, {"timestamp", ts}};
  ordered_json parsed_tags = ordered_json::parse(tags, nullptr, false);
  if (parsed_tags.is_object() && !parsed_tags.empty()) row["tags"] = std::move(parsed_tags);
  return row;
}

}  // namespace

Status OpenSessionBuffer(Service::Impl& s) {
  TALA_RETURN_IF_ERROR(s.Exec(kSessionSchema));
  Stmt count(s.db,
             "SELECT (SELECT COUNT(*) FROM open_sessions), (SELECT COUNT(*) FROM "
             "session_turns)");
  if (count && count.Step()) {
    s.open_sessions = sqlite3_column_int64(count.get(), 0);
    s.open_turns = sqlite3_column_int64(count.get(), 1);
  }
  return OkStatus();
}

int64_t Service::open_sessions() const { return impl_->open_sessions.load(); }

Result<bool> StoreTurn(Service::Impl& s, const Incoming& in, double now, bool& opened) {
  Stmt known(s.db, "SELECT 1 FROM open_sessions WHERE session_id = ?1");
  known.Text(1, in.session);
  opened = !known.Step();
  Stmt insert(s.db,
              "INSERT OR IGNORE INTO session_turns (session_id, turn_id, ord, ts, tags, body) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  insert.Text(1, in.session);
  insert.Text(2, in.id);
  insert.Real(3, in.order);
  insert.Real(4, in.ts);
  insert.Text(5, in.tags);
  insert.Text(6, in.body);
  if (insert.Done() != SQLITE_DONE) {
    return IoError(std::string("cannot store a conversation's turn: ") + sqlite3_errmsg(s.db));
  }
  const bool added = sqlite3_changes(s.db) == 1;
  Stmt seen(
      s.db,
      "INSERT INTO open_sessions (session_id, last_seen) VALUES (?1, ?2) "
      "ON CONFLICT (session_id) DO UPDATE SET last_seen = MAX(last_seen, excluded.last_seen)");
  seen.Text(1, in.session);
  seen.Real(2, now);
  if (seen.Done() != SQLITE_DONE) {
    return IoError(std::string("cannot store a conversation's turn: ") + sqlite3_errmsg(s.db));
  }
  return added;
}

Result<int64_t> Service::FlushSessions(double now, int max_sessions) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.open_sessions == 0) return int64_t{0};
  Stmt due(s.db,
           "SELECT session_id FROM open_sessions WHERE last_seen <= ?1 ORDER BY last_seen "
           "LIMIT ?2");
  due.Real(1, now - s.options.session_quiet);
  due.Int(2, max_sessions);
  std::vector<std::string> ids;
  while (due.Step()) ids.push_back(due.Column(0));
  if (ids.empty()) return int64_t{0};
  Stmt turns(s.db,
             "SELECT body, ts, tags FROM session_turns WHERE session_id = ?1 ORDER BY ord, seq");
  Stmt taken(s.db, "SELECT 1 FROM rows WHERE id = ?1");
  std::vector<Incoming> rows;
  int64_t closed_turns = 0;
  for (const std::string& id : ids) {
    std::vector<std::string> bodies;
    double ts = 0;
    std::string tags = "{}";
    turns.Text(1, id);
    while (turns.Step()) {
      bodies.push_back(turns.Column(0));
      ts = std::max(ts, sqlite3_column_double(turns.get(), 1));
      tags = turns.Column(2);  // the last turn's
    }
    turns.Reset();
    closed_turns += static_cast<int64_t>(bodies.size());
    // A conversation that goes on after it was scored (quiet, then more turns) is stored as
    // its continuation, "ID#2", "ID#3"...: a stored row is never replaced.
    std::string row_id = id;
    for (int k = 2;; ++k) {
      taken.Text(1, row_id);
      const bool exists = taken.Step();
      taken.Reset();
      if (!exists) break;
      row_id = id + "#" + std::to_string(k);
    }
    const std::string line = ConversationRow(row_id, bodies, ts, tags).dump();
    auto parsed = ParseRows(s, line, now);
    if (!parsed) {
      std::fprintf(stderr, "tala serve: conversation %s dropped: %s\n", id.c_str(),
                   parsed.error().ToString().c_str());
      continue;
    }
    for (Incoming& in : *parsed) rows.push_back(std::move(in));
  }
  TALA_RETURN_IF_ERROR(StoreInPlaceOf(s, rows, now, ids,
                                      {"DELETE FROM session_turns WHERE session_id = ?1",
                                       "DELETE FROM open_sessions WHERE session_id = ?1"},
                                      "conversation"));
  s.open_turns -= closed_turns;
  s.open_sessions -= static_cast<int64_t>(ids.size());
  return static_cast<int64_t>(ids.size());
}

}  // namespace tala
