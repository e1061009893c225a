// Service's alert rules: parsing, the firing/clearing state machine with hysteresis, the
// history kept in the database, and the payload sent to webhooks.

#include <algorithm>
#include <cmath>
#include <ctime>
#include <regex>

#include "io/writers/json_text.h"
#include "serve/service_impl.h"

namespace tala {

namespace {

std::string Iso(double at) {
  std::time_t t = static_cast<std::time_t>(at);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool Holds(const AlertRule& r, double mean) {
  if (r.op == "<") return mean < r.threshold;
  if (r.op == "<=") return mean <= r.threshold;
  if (r.op == ">") return mean > r.threshold;
  return mean >= r.threshold;
}

// Back on the good side by the margin: what clears a firing rule.
bool Recovered(const AlertRule& r, double mean) {
  bool low_is_bad = r.op == "<" || r.op == "<=";
  return low_is_bad ? mean >= r.threshold + r.clear_margin : mean <= r.threshold - r.clear_margin;
}

AlertEvent EventFrom(Stmt& q) {
  AlertEvent e;
  e.id = sqlite3_column_int64(q.get(), 0);
  e.rule = q.Column(1);
  e.event = q.Column(2);
  e.at = sqlite3_column_double(q.get(), 3);
  e.mean = sqlite3_column_double(q.get(), 4);
  e.n = sqlite3_column_int64(q.get(), 5);
  e.threshold = sqlite3_column_double(q.get(), 6);
  e.webhook = q.Column(7);
  return e;
}

constexpr const char* kEventColumns = "SELECT id, rule, event, at, mean, n, threshold, webhook";

}  // namespace

Result<AlertRule> ParseAlertRule(const std::string& text) {
  static const std::regex kRule(
      R"(^\s*(\S+)\.mean_([0-9]+[smhd]?)\s*(<=|>=|<|>)\s*([0-9]*\.?[0-9]+)\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, kRule)) {
    return InvalidArgument("alert \"" + text +
                           "\": expected METRIC.mean_WINDOW OP NUMBER, such as "
                           "faithfulness.mean_7d < 0.70");
  }
  AlertRule r;
  r.text = text;
  r.metric = m[1];
  r.window = m[2];
  r.op = m[3];
  r.threshold = std::stod(m[4]);
  ServeOptions none;
  none.windows.clear();
  TALA_ASSIGN_OR_RETURN(r.window_seconds, WindowSeconds(none, r.window));
  return r;
}

std::string AlertEvent::Payload() const {
  std::string out = "{\"rule\":";
  io::AppendJsonString(out, rule);
  out += ",\"event\":";
  io::AppendJsonString(out, event);
  out += ",\"mean\":";
  // A clear for want of data has no mean (serve finding 6: "mean": 0 read as a score of 0).
  if (n > 0) {
    io::AppendJsonNumber(out, mean);
  } else {
    out += "null";
  }
  out += ",\"n\":" + std::to_string(n) + ",\"threshold\":";
  io::AppendJsonNumber(out, threshold);
  out += ",\"at\":\"" + Iso(at) + "\"}";
  return out;
}

Status CreateAlertTables(Service::Impl& s) {
  TALA_RETURN_IF_ERROR(s.Exec(
      "CREATE TABLE IF NOT EXISTS alert_state (rule TEXT PRIMARY KEY, firing INTEGER NOT NULL,"
      "  since REAL NOT NULL);"
      "CREATE TABLE IF NOT EXISTS alert_events (id INTEGER PRIMARY KEY, rule TEXT NOT NULL,"
      "  event TEXT NOT NULL, at REAL NOT NULL, mean REAL NOT NULL, n INTEGER NOT NULL,"
      "  threshold REAL NOT NULL, webhook TEXT NOT NULL, delivered INTEGER NOT NULL);"
      "CREATE TABLE IF NOT EXISTS alert_attempts (event_id INTEGER NOT NULL, at REAL NOT NULL,"
      "  status INTEGER NOT NULL, error TEXT NOT NULL);"));
  // Databases from before delivery backoff get its two columns.
  bool has_attempts = false;
  {
    Stmt columns(s.db, "SELECT name FROM pragma_table_info('alert_events')");
    while (columns.Step()) has_attempts = has_attempts || columns.Column(0) == "attempts";
  }
  if (!has_attempts) {
    TALA_RETURN_IF_ERROR(
        s.Exec("ALTER TABLE alert_events ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;"
               "ALTER TABLE alert_events ADD COLUMN next_at REAL NOT NULL DEFAULT 0;"));
  }
  // What /metrics says of each rule, without reading the database on a scrape.
  Stmt state(s.db, "SELECT rule, firing FROM alert_state");
  std::lock_guard<std::mutex> stats(s.stats_mu);
  while (state.Step()) s.firing[state.Column(0)] = sqlite3_column_int64(state.get(), 1) != 0;
  return OkStatus();
}

namespace {
// Seconds before attempt `attempt` + 1 of event `id`: 1 s doubling per failed attempt, at most
// 5 minutes, times a jitter in [0.8, 1.2] fixed by the event and the attempt (so many rules
// failing at once do not retry in step, and a test can bound it).
double Backoff(int64_t id, int64_t attempt) {
  double base =
      std::min(300.0, std::ldexp(1.0, static_cast<int>(std::min<int64_t>(attempt, 20)) - 1));
  uint64_t h = static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull ^
               static_cast<uint64_t>(attempt) * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 29;
  double jitter = 0.8 + 0.4 * static_cast<double>(h % 10000) / 9999.0;
  return base * jitter;
}
}  // namespace

Status Service::RecordAlertAttempt(int64_t id, double at, int http_status,
                                   const std::string& error) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  const bool delivered = http_status >= 200 && http_status < 300;
  TALA_RETURN_IF_ERROR(s.Exec("BEGIN IMMEDIATE"));
  Stmt log(s.db, "INSERT INTO alert_attempts (event_id, at, status, error) VALUES (?1,?2,?3,?4)");
  log.Int(1, id);
  log.Real(2, at);
  log.Int(3, http_status);
  log.Text(4, error);
  int64_t attempts = 0;
  {
    Stmt count(s.db, "SELECT attempts FROM alert_events WHERE id = ?1");
    count.Int(1, id);
    if (count.Step()) attempts = sqlite3_column_int64(count.get(), 0);
  }
  ++attempts;
  Stmt update(s.db,
              "UPDATE alert_events SET attempts = ?2, next_at = ?3, delivered = ?4 WHERE id = ?1");
  update.Int(1, id);
  update.Int(2, attempts);
  update.Real(3, delivered ? 0 : at + Backoff(id, attempts));
  update.Int(4, delivered ? 1 : 0);
  if (log.Done() != SQLITE_DONE || update.Done() != SQLITE_DONE) {
    std::string message = sqlite3_errmsg(s.db);
    (void)s.Exec("ROLLBACK");
    return IoError("cannot record an alert delivery: " + message);
  }
  return s.Exec("COMMIT");
}

Result<std::vector<AlertEvent>> Service::CheckAlerts(double now) {
  Impl& s = *impl_;
  std::vector<AlertEvent> events;
  std::lock_guard<std::mutex> lock(s.mu);
  for (const AlertRule& rule : s.options.alerts) {
    TALA_ASSIGN_OR_RETURN(auto totals,
                          MetricTotals(s, rule.metric, now - rule.window_seconds, now));
    auto [n, sum] = totals;
    bool firing = false;
    {
      Stmt state(s.db, "SELECT firing FROM alert_state WHERE rule = ?1");
      state.Text(1, rule.text);
      if (state.Step()) firing = sqlite3_column_int64(state.get(), 0) != 0;
    }
    double mean = n > 0 ? sum / static_cast<double>(n) : 0;
    std::string event;
    if (!firing && n >= rule.min_rows && Holds(rule, mean)) event = "fired";
    if (firing && n > 0 && Recovered(rule, mean)) event = "cleared";
    // No row left in the window: nothing says the metric is still bad (n is 0 in the event).
    if (firing && n == 0 && rule.clear_on_no_data) event = "cleared";
    if (event.empty()) continue;
    TALA_RETURN_IF_ERROR(s.Exec("BEGIN IMMEDIATE"));
    Stmt set(s.db, "INSERT OR REPLACE INTO alert_state (rule, firing, since) VALUES (?1,?2,?3)");
    set.Text(1, rule.text);
    set.Int(2, event == "fired" ? 1 : 0);
    set.Real(3, now);
    Stmt log(s.db,
             "INSERT INTO alert_events (rule, event, at, mean, n, threshold, webhook, delivered) "
             "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    log.Text(1, rule.text);
    log.Text(2, event);
    log.Real(3, now);
    log.Real(4, mean);
    log.Int(5, n);
    log.Real(6, rule.threshold);
    log.Text(7, rule.webhook);
    log.Int(8, rule.webhook.empty() ? 1 : 0);
    if (set.Done() != SQLITE_DONE || log.Done() != SQLITE_DONE) {
      std::string message = sqlite3_errmsg(s.db);
      (void)s.Exec("ROLLBACK");
      return IoError("cannot store an alert: " + message);
    }
    AlertEvent e{sqlite3_last_insert_rowid(s.db),
                 rule.text,
                 event,
                 now,
                 mean,
                 rule.threshold,
                 n,
                 rule.webhook};
    TALA_RETURN_IF_ERROR(s.Exec("COMMIT"));
    {
      std::lock_guard<std::mutex> stats(s.stats_mu);
      s.firing[rule.text] = event == "fired";
    }
    events.push_back(std::move(e));
  }
  return events;
}

Result<std::vector<AlertEvent>> Service::UndeliveredAlerts(double now) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  Stmt q(s.db, (std::string(kEventColumns) +
                " FROM alert_events WHERE delivered = 0 AND next_at <= ?1 ORDER BY id")
                   .c_str());
  q.Real(1, std::min(now, 1e300));
  std::vector<AlertEvent> out;
  while (q.Step()) out.push_back(EventFrom(q));
  return out;
}

Status Service::MarkAlertDelivered(int64_t id) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  Stmt q(s.db, "UPDATE alert_events SET delivered = 1 WHERE id = ?1");
  q.Int(1, id);
  return q.Done() == SQLITE_DONE ? OkStatus() : IoError(sqlite3_errmsg(s.db));
}

Result<std::string> Service::AlertsJson() {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  std::string out = "{\"rules\":[";
  for (size_t i = 0; i < s.options.alerts.size(); ++i) {
    const AlertRule& rule = s.options.alerts[i];
    Stmt state(s.db, "SELECT firing, since FROM alert_state WHERE rule = ?1");
    state.Text(1, rule.text);
    bool firing = false;
    std::string since = "null";
    if (state.Step()) {
      firing = sqlite3_column_int64(state.get(), 0) != 0;
      since = "\"" + Iso(sqlite3_column_double(state.get(), 1)) + "\"";
    }
    out += i ? ",{\"rule\":" : "{\"rule\":";
    io::AppendJsonString(out, rule.text);
    out += std::string(",\"firing\":") + (firing ? "true" : "false") + ",\"since\":" + since +
           ",\"min_rows\":" + std::to_string(rule.min_rows) + "}";
  }
  out += "],\"history\":[";
  Stmt q(s.db, (std::string(kEventColumns) +
                ", delivered, attempts, next_at, (SELECT error FROM alert_attempts a WHERE"
                " a.event_id = alert_events.id ORDER BY a.at DESC LIMIT 1) FROM alert_events"
                " ORDER BY id DESC LIMIT 100")
                   .c_str());
  bool first = true;
  while (q.Step()) {
    if (!first) out += ',';
    first = false;
    std::string event = EventFrom(q).Payload();
    event.pop_back();  // the closing brace: the delivery follows
    const bool delivered = sqlite3_column_int64(q.get(), 8) != 0;
    event +=
        std::string(",\"delivered\":") + (delivered ? "true" : "false") +
        ",\"attempts\":" + std::to_string(sqlite3_column_int64(q.get(), 9)) + ",\"next_attempt\":" +
        (delivered ? std::string("null") : "\"" + Iso(sqlite3_column_double(q.get(), 10)) + "\"") +
        ",\"last_error\":";
    io::AppendJsonString(event, q.Column(11));
    out += event + "}";
  }
  out += "],\"attempts\":[";
  Stmt tries(
      s.db, "SELECT event_id, at, status, error FROM alert_attempts ORDER BY rowid DESC LIMIT 100");
  first = true;
  while (tries.Step()) {
    out += first ? "{\"event\":" : ",{\"event\":";
    first = false;
    out += std::to_string(sqlite3_column_int64(tries.get(), 0)) + ",\"at\":\"" +
           Iso(sqlite3_column_double(tries.get(), 1)) +
           "\",\"status\":" + std::to_string(sqlite3_column_int64(tries.get(), 2)) + ",\"error\":";
    io::AppendJsonString(out, tries.Column(3));
    out += "}";
  }
  return out + "]}";
}

}  // namespace tala
