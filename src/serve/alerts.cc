// Service's alert rules: parsing, the firing/clearing state machine with hysteresis, the
// history kept in the database, and the payload sent to webhooks.

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

constexpr const char* kEventColumns =
    "SELECT id, rule, event, at, mean, n, threshold, webhook FROM alert_events";

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
  io::AppendJsonNumber(out, mean);
  out += ",\"n\":" + std::to_string(n) + ",\"threshold\":";
  io::AppendJsonNumber(out, threshold);
  out += ",\"at\":\"" + Iso(at) + "\"}";
  return out;
}

Status CreateAlertTables(Service::Impl& s) {
  return s.Exec(
      "CREATE TABLE IF NOT EXISTS alert_state (rule TEXT PRIMARY KEY, firing INTEGER NOT NULL,"
      "  since REAL NOT NULL);"
      "CREATE TABLE IF NOT EXISTS alert_events (id INTEGER PRIMARY KEY, rule TEXT NOT NULL,"
      "  event TEXT NOT NULL, at REAL NOT NULL, mean REAL NOT NULL, n INTEGER NOT NULL,"
      "  threshold REAL NOT NULL, webhook TEXT NOT NULL, delivered INTEGER NOT NULL);");
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
    events.push_back(std::move(e));
  }
  return events;
}

Result<std::vector<AlertEvent>> Service::UndeliveredAlerts() {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  Stmt q(s.db, (std::string(kEventColumns) + " WHERE delivered = 0 ORDER BY id").c_str());
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
  Stmt q(s.db, (std::string(kEventColumns) + " ORDER BY id DESC LIMIT 100").c_str());
  bool first = true;
  while (q.Step()) {
    if (!first) out += ',';
    first = false;
    out += EventFrom(q).Payload();
  }
  return out + "]}";
}

}  // namespace tala
