// Service's rolling windows (SummaryJson) and their Prometheus exposition (PrometheusText).

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "io/writers/json_text.h"
#include "serve/service_impl.h"

namespace tala {

// "7d", "1h", "90m", "3600" (seconds), or a window named in the options.
Result<int64_t> WindowSeconds(const ServeOptions& o, const std::string& window) {
  for (const auto& [name, seconds] : o.windows) {
    if (name == window) return seconds;
  }
  if (!window.empty()) {
    size_t digits = 0;
    while (digits < window.size() && std::isdigit(static_cast<unsigned char>(window[digits]))) {
      ++digits;
    }
    std::string unit = window.substr(digits);
    int64_t scale = unit.empty() || unit == "s" ? 1
                    : unit == "m"               ? 60
                    : unit == "h"               ? 3600
                    : unit == "d"               ? 86400
                                                : 0;
    if (digits > 0 && digits <= 9 && scale > 0) return std::stoll(window.substr(0, digits)) * scale;
  }
  return InvalidArgument("window \"" + window +
                         "\": expected a number with s, m, h or d (1h, 1d, 7d)");
}

Result<std::pair<int64_t, double>> MetricTotals(Service::Impl& s, const std::string& metric,
                                                double since, double until) {
  // The minutes /v1/summary?window= reads, so an alert and the summary of its window count the
  // same rows (serve finding 5: the rule cleared "no data" while the summary of the same window
  // still held 300 rows, for a minute).
  const serve::Tally t = s.agg->Window(since, until, "");
  auto it = t.metrics.find(metric);
  if (it == t.metrics.end()) return std::pair<int64_t, double>{0, 0};
  return std::pair<int64_t, double>{it->second.n, it->second.sum};
}

namespace {

struct Tag {
  std::string path, value;  // a JSON path into the row's tags ('$."route"'), the value wanted
};

Result<Tag> ParseTag(const std::string& tag) {
  size_t eq = tag.find('=');
  if (eq == std::string::npos || eq == 0) {
    return InvalidArgument("tag \"" + tag + "\": expected KEY=VALUE, such as app_version=1.4");
  }
  std::string key = tag.substr(0, eq);
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return InvalidArgument("tag key \"" + key + "\": letters, digits, _ - and . only");
    }
  }
  return Tag{"$.\"" + key + "\"", tag.substr(eq + 1)};
}

struct MetricWindow {
  int64_t n = 0;
  double sum = 0, squares = 0;
};

struct Window {
  int64_t ingested = 0, sampled = 0, scored = 0, failed = 0, pending = 0, skipped = 0;
  int64_t duplicates = 0;  // from the aggregates only (a summary by another tag has none)
  int64_t conversations = 0, turns = 0;  // of the rows, conversations and their turns
  std::map<std::string, MetricWindow> metrics;
  std::vector<std::pair<std::string, int64_t>> diagnoses;
};

// The window's rows as `db` holds them (a connection of the caller's own).
Result<Window> Query(sqlite3* db, double since, double until, const std::optional<Tag>& tag) {
  std::string where = " WHERE r.ts >= ?1 AND r.ts <= ?2";
  if (tag) where += " AND json_extract(r.tags, ?3) = ?4";
  auto bind = [&](Stmt& q) {
    q.Real(1, since);
    q.Real(2, until);
    if (tag) {
      q.Text(3, tag->path);
      q.Text(4, tag->value);
    }
  };
  Window w;
  Stmt counts(db,
              ("SELECT COUNT(*), TOTAL(r.sampled), TOTAL(r.state = 'scored'), "
               "TOTAL(r.state = 'failed'), TOTAL(r.state = 'pending'), TOTAL(r.state = 'skipped'), "
               "TOTAL(" +
               serve::TurnsOfBodySql("r.body") + " > 0), TOTAL(" + serve::TurnsOfBodySql("r.body") +
               ") FROM rows r" + where)
                  .c_str());
  if (!counts) return IoError(std::string("summary: ") + sqlite3_errmsg(db));
  bind(counts);
  if (counts.Step()) {
    w.ingested = sqlite3_column_int64(counts.get(), 0);
    w.sampled = static_cast<int64_t>(sqlite3_column_double(counts.get(), 1));
    w.scored = static_cast<int64_t>(sqlite3_column_double(counts.get(), 2));
    w.failed = static_cast<int64_t>(sqlite3_column_double(counts.get(), 3));
    w.pending = static_cast<int64_t>(sqlite3_column_double(counts.get(), 4));
    w.skipped = static_cast<int64_t>(sqlite3_column_double(counts.get(), 5));
    w.conversations = static_cast<int64_t>(sqlite3_column_double(counts.get(), 6));
    w.turns = static_cast<int64_t>(sqlite3_column_double(counts.get(), 7));
  }
  Stmt values(db, ("SELECT c.metric, COUNT(*), TOTAL(c.value), TOTAL(c.value * c.value) FROM "
                   "scores c JOIN rows r ON r.seq = c.seq" +
                   where + " GROUP BY c.metric")
                      .c_str());
  bind(values);
  while (values.Step()) {
    MetricWindow& m = w.metrics[values.Column(0)];
    m.n = sqlite3_column_int64(values.get(), 1);
    m.sum = sqlite3_column_double(values.get(), 2);
    m.squares = sqlite3_column_double(values.get(), 3);
  }
  Stmt mix(db, ("SELECT r.diagnosis, COUNT(*) FROM rows r" + where +
                " AND r.state = 'scored' GROUP BY r.diagnosis ORDER BY COUNT(*) DESC")
                   .c_str());
  bind(mix);
  while (mix.Step()) w.diagnoses.emplace_back(mix.Column(0), sqlite3_column_int64(mix.get(), 1));
  return w;
}

Window FromTally(const serve::Tally& t) {
  Window w;
  w.ingested = t.ingested;
  w.sampled = t.sampled;
  w.scored = t.scored;
  w.failed = t.failed;
  w.pending = t.pending();
  w.skipped = t.skipped;
  w.duplicates = t.duplicates;
  w.conversations = t.conversations;
  w.turns = t.turns;
  for (const auto& [metric, sums] : t.metrics) w.metrics[metric] = {sums.n, sums.sum, sums.squares};
  for (const auto& [d, n] : t.diagnoses) w.diagnoses.emplace_back(d, n);
  std::stable_sort(w.diagnoses.begin(), w.diagnoses.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return w;
}

// A label value as the exposition format wants it: backslash, double quote and newline escaped.
std::string Label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Number(double v) {
  std::string out;
  io::AppendJsonNumber(out, v);
  return out;
}

constexpr std::array<double, 11> kHttpBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                 0.5,   1,    2.5,   5,    10};

// The process series Prometheus' client libraries export, read from /proc.
std::string ProcessSeries(double started) {
  std::string out;
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  double cpu = static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
               static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  out +=
      "# HELP process_cpu_seconds_total User and system CPU time spent in seconds.\n"
      "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total " +
      Number(cpu) + "\n";
  long pages = 0, resident = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  out +=
      "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
      "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes " +
      Number(static_cast<double>(resident) * page) + "\n";
  out +=
      "# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"
      "# TYPE process_virtual_memory_bytes gauge\nprocess_virtual_memory_bytes " +
      Number(static_cast<double>(pages) * page) + "\n";
  int64_t fds = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++fds;
  }
  out +=
      "# HELP process_open_fds Number of open file descriptors.\n"
      "# TYPE process_open_fds gauge\nprocess_open_fds " +
      std::to_string(fds) + "\n";
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  out +=
      "# HELP process_max_fds Maximum number of open file descriptors.\n"
      "# TYPE process_max_fds gauge\nprocess_max_fds " +
      Number(static_cast<double>(limit.rlim_cur)) + "\n";
  out +=
      "# HELP process_start_time_seconds Start time of the process since unix epoch in "
      "seconds.\n# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds " +
      Number(started) + "\n";
  return out;
}

}  // namespace

Result<std::string> Service::SummaryJson(const std::string& window, const std::string& tag,
                                         double now) {
  Impl& s = *impl_;
  TALA_ASSIGN_OR_RETURN(int64_t seconds, WindowSeconds(s.options, window));
  std::optional<Tag> filter;
  if (!tag.empty()) {
    TALA_ASSIGN_OR_RETURN(filter, ParseTag(tag));
  }
  const double since = now - static_cast<double>(seconds);
  // Read before the counts: a trace closes (its row stored and counted) before the open count
  // drops, so a zero read here means every closed trace's row is in the counts read after it.
  // Read after them, a trace closing in between showed neither open nor as a row.
  // The same order along the way a turn takes: its trace closes (a turn stored) before the
  // open traces drop, its conversation becomes a row before the open conversations drop.
  const int64_t traces_open = s.open_traces.load();
  const int64_t turns_open = s.open_turns.load();
  const int64_t conversations_open = s.open_sessions.load();
  Window w;
  std::string key = tag.substr(0, tag.find('='));
  if (tag.empty() || s.agg->Breaks(key)) {
    // From the aggregates (whole minutes): no row is read, and ingest is never waited on.
    w = FromTally(s.agg->Window(since, now, tag));
  } else {
    // A tag that is not broken down: the window's rows are read, on a connection of this
    // request's own. The database is in WAL mode, so the read waits for no write and no write
    // waits for it (serve finding 1: under the ingest lock, a summary over 1M rows held every
    // POST for 24 s, past an OTLP exporter's timeout).
    sqlite3* reader = nullptr;
    const int opened = sqlite3_open_v2(s.options.db.c_str(), &reader,
                                       SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    std::unique_ptr<sqlite3, int (*)(sqlite3*)> own(reader, &sqlite3_close);
    if (opened != SQLITE_OK) {
      return IoError("summary: cannot open " + s.options.db +
                     " to read: " + sqlite3_errmsg(reader));
    }
    sqlite3_busy_timeout(reader, 5000);
    // One read transaction: the counts, values and diagnoses of one snapshot.
    sqlite3_exec(reader, "BEGIN", nullptr, nullptr, nullptr);
    auto queried = Query(reader, since, now, filter);
    sqlite3_exec(reader, "COMMIT", nullptr, nullptr, nullptr);
    if (!queried) return queried.error();
    w = std::move(*queried);
  }
  // People's labels on the window's rows: each metric's mean corrected by them (tala estimate's
  // prediction-powered mean), read on a connection of this request's own, and only when some
  // label is stored.
  std::map<std::string, CorrectedMean> corrected;
  if (tag.empty()) {
    sqlite3* reader = nullptr;
    if (sqlite3_open_v2(s.options.db.c_str(), &reader, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                        nullptr) == SQLITE_OK) {
      std::unique_ptr<sqlite3, int (*)(sqlite3*)> own(reader, &sqlite3_close);
      sqlite3_busy_timeout(reader, 5000);
      sqlite3_stmt* any = nullptr;
      bool labelled = false;
      if (sqlite3_prepare_v2(reader, "SELECT 1 FROM labels LIMIT 1", -1, &any, nullptr) ==
          SQLITE_OK) {
        labelled = sqlite3_step(any) == SQLITE_ROW;
      }
      sqlite3_finalize(any);
      if (labelled) {
        sqlite3_exec(reader, "BEGIN", nullptr, nullptr, nullptr);
        for (const auto& metric : s.metrics) {
          auto c = CorrectedWindowMean(reader, metric->key(), since, now);
          if (!c) {
            sqlite3_exec(reader, "COMMIT", nullptr, nullptr, nullptr);
            return c.error();
          }
          if (*c) corrected[metric->key()] = **c;
        }
        sqlite3_exec(reader, "COMMIT", nullptr, nullptr, nullptr);
      }
    }
  }
  std::string out = "{\"window\":";
  io::AppendJsonString(out, window);
  out += ",\"seconds\":" + std::to_string(seconds) + ",\"tag\":";
  io::AppendJsonString(out, tag);
  out += ",\"rows_ingested\":" + std::to_string(w.ingested) +
         ",\"rows_sampled\":" + std::to_string(w.sampled) +
         ",\"rows_scored\":" + std::to_string(w.scored) +
         ",\"rows_failed\":" + std::to_string(w.failed) +
         ",\"rows_pending\":" + std::to_string(w.pending) +
         ",\"rows_skipped\":" + std::to_string(w.skipped) +
         ",\"rows_duplicate\":" + std::to_string(w.duplicates) +
         ",\"conversations\":" + std::to_string(w.conversations) +
         ",\"turns\":" + std::to_string(w.turns) +
         ",\"traces_open\":" + std::to_string(traces_open) +
         ",\"conversations_open\":" + std::to_string(conversations_open) +
         ",\"turns_open\":" + std::to_string(turns_open) +
         ",\"scoring_lag_seconds\":" + Number(ScoringLag(now)) + ",\"metrics\":{";
  bool first = true;
  for (const auto& metric : s.metrics) {
    auto it = w.metrics.find(metric->key());
    MetricWindow m = it == w.metrics.end() ? MetricWindow{} : it->second;
    if (!first) out += ',';
    first = false;
    io::AppendJsonString(out, metric->key());
    out += ":{\"n\":" + std::to_string(m.n);
    if (auto c = corrected.find(metric->key()); c != corrected.end()) {
      const CorrectedMean& k = c->second;
      out += ",\"corrected\":{\"labels\":" + std::to_string(k.labels) +
             ",\"rows\":" + std::to_string(k.rows) +
             ",\"mean\":" + (k.valid ? Number(k.mean) : std::string("null")) + ",\"ci\":" +
             (k.valid ? "[" + Number(k.low) + "," + Number(k.high) + "]" : std::string("null")) +
             "}";
    }
    if (m.n == 0) {
      out += ",\"mean\":null,\"ci\":null}";
      continue;
    }
    double mean = m.sum / static_cast<double>(m.n);
    out += ",\"mean\":" + Number(mean) + ",\"ci\":";
    if (m.n < 2) {
      out += "null}";
      continue;
    }
    // The normal interval of the mean: windows hold what the database holds, so the sums
    // (not the values) are what a window keeps.
    double var = std::max(0.0, (m.squares - m.sum * mean) / static_cast<double>(m.n - 1));
    double half = 1.959963984540054 * std::sqrt(var / static_cast<double>(m.n));
    out +=
        "[" + Number(std::max(0.0, mean - half)) + "," + Number(std::min(1.0, mean + half)) + "]}";
  }
  out += "},\"diagnoses\":{";
  for (size_t i = 0; i < w.diagnoses.size(); ++i) {
    if (i) out += ',';
    io::AppendJsonString(out, w.diagnoses[i].first);
    out += ':' + std::to_string(w.diagnoses[i].second);
  }
  out += "}}";
  return out;
}

Result<std::string> Service::PrometheusText(double now) {
  Impl& s = *impl_;
  // Only memory is read: the aggregates, the judge spend and the HTTP series, each under its own
  // lock, so a scrape never waits on ingest's transaction or on the rows.
  const serve::Tally all = s.agg->Totals();
  std::string out;
  auto head = [&](const std::string& name, const char* type, const std::string& help) {
    out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  };
  auto counter = [&](const char* name, const char* help, int64_t v) {
    head(name, "counter", help);
    out += std::string(name) + " " + std::to_string(v) + "\n";
  };
  counter("tala_rows_ingested_total", "Rows accepted and stored (a repeated id once).",
          all.ingested);
  counter("tala_conversations_total",
          "Of the rows, conversations (a session's turns joined, or a row listing messages).",
          all.conversations);
  counter("tala_conversation_turns_total", "The answered turns of those conversations.", all.turns);
  counter("tala_rows_duplicate_total",
          "Rows whose id was already stored: acknowledged, not stored or scored again.",
          all.duplicates);
  counter("tala_rows_sampled_total", "Rows chosen for scoring by the sample.", all.sampled);
  counter("tala_rows_scored_total", "Rows scored.", all.scored);
  counter("tala_rows_failed_total", "Rows whose scoring failed.", all.failed);
  counter("tala_rows_skipped_total", "Sampled rows skipped because the judge budget was spent.",
          all.skipped);
  {
    std::lock_guard<std::mutex> lock(s.stats_mu);
    counter("tala_judge_calls_total", "Model calls made by an LLM judge (cache hits excluded).",
            static_cast<int64_t>(s.judge_calls));
    counter("tala_rows_deleted_total",
            "Rows deleted by retention since the start (their aggregates are kept).", s.deleted);
    counter("tala_traces_received_total", "OTLP traces received on /v1/traces.", s.traces_received);
    head("tala_traces_dropped_total", "counter",
         "OTLP traces that gave no row, or whose spans were refused, by reason.");
    for (const char* reason :
         {"no_question_or_answer", "late_spans", "too_many_open_traces", "invalid_row"}) {
      out += std::string("tala_traces_dropped_total{reason=\"") + reason + "\"} " +
             std::to_string(s.traces_dropped[reason]) + "\n";
    }
    head("tala_judge_cost_usd_total", "counter",
         "What the judge calls cost, when the price is known.");
    out += "tala_judge_cost_usd_total " + Number(s.judge_cost) + "\n";
    head("tala_judge_prompt_tokens_total", "counter",
         "Prompt tokens sent to an LLM judge since the start, by what the provider's prompt "
         "cache did with them: none (billed at the input price), read, write.");
    for (auto [cache, n] : {std::pair<const char*, int64_t>{"none", s.judge_prompt_uncached},
                            {"read", s.judge_prompt_cache_read},
                            {"write", s.judge_prompt_cache_write}}) {
      out += std::string("tala_judge_prompt_tokens_total{cache=\"") + cache + "\"} " +
             std::to_string(n) + "\n";
    }
    counter("tala_judge_completion_tokens_total",
            "Completion tokens an LLM judge returned since the start.", s.judge_completion_tokens);
  }
  if (!s.options.alerts.empty()) {
    std::lock_guard<std::mutex> lock(s.stats_mu);
    head("tala_alert_firing", "gauge", "1 while an alert rule fires, else 0.");
    for (const AlertRule& rule : s.options.alerts) {
      auto it = s.firing.find(rule.text);
      out += "tala_alert_firing{rule=\"" + Label(rule.text) + "\"} " +
             (it != s.firing.end() && it->second ? "1" : "0") + "\n";
    }
  }
  head("tala_queue_depth", "gauge", "Sampled rows waiting to be scored.");
  out += "tala_queue_depth " + std::to_string(all.pending()) + "\n";
  head("tala_scoring_lag_seconds", "gauge",
       "How long the oldest row waiting to be scored has waited (0: none waits).");
  out += "tala_scoring_lag_seconds " + Number(ScoringLag(now)) + "\n";
  head("tala_traces_open", "gauge",
       "OTLP traces whose spans wait for the trace to end (--trace-linger).");
  out += "tala_traces_open " + std::to_string(s.open_traces.load()) + "\n";
  head("tala_conversations_open", "gauge",
       "Conversations whose turns wait for the conversation to go quiet (--session-quiet).");
  out += "tala_conversations_open " + std::to_string(s.open_sessions.load()) + "\n";

  // Each metric's values as a histogram: rate() and histogram_quantile() over any window.
  head("tala_metric_value", "histogram", "Values of a metric over the scored rows.");
  for (const auto& [metric, h] : s.agg->Histograms()) {
    const std::string m = "metric=\"" + Label(metric) + "\"";
    int64_t cumulative = 0;
    for (size_t b = 0; b < h.counts.size(); ++b) {
      cumulative += h.counts[b];
      std::string le = b < serve::kValueBuckets.size() ? Number(serve::kValueBuckets[b]) : "+Inf";
      out += "tala_metric_value_bucket{" + m + ",le=\"" + le + "\"} " + std::to_string(cumulative) +
             "\n";
    }
    out += "tala_metric_value_sum{" + m + "} " + Number(h.sum) + "\n";
    out += "tala_metric_value_count{" + m + "} " + std::to_string(h.count) + "\n";
  }

  // The window means, as gauges, for a glance (the histogram is what PromQL should use).
  std::string means, counts;
  for (const auto& [name, seconds] : s.options.windows) {
    Window w = FromTally(s.agg->Window(now - static_cast<double>(seconds), now, ""));
    for (const auto& metric : s.metrics) {
      auto it = w.metrics.find(metric->key());
      MetricWindow m = it == w.metrics.end() ? MetricWindow{} : it->second;
      std::string labels =
          "{metric=\"" + Label(metric->key()) + "\",window=\"" + Label(name) + "\"}";
      if (m.n > 0) {
        means +=
            "tala_metric_mean" + labels + " " + Number(m.sum / static_cast<double>(m.n)) + "\n";
      }
      counts += "tala_metric_rows" + labels + " " + std::to_string(m.n) + "\n";
    }
  }
  head("tala_metric_mean", "gauge", "Mean of a metric over the rows stamped within the window.");
  out += means;
  head("tala_metric_rows", "gauge", "Rows with a value of the metric within the window.");
  out += counts;

  // Per tag of the configured keys: counters a dashboard can rate() and divide.
  const auto tags = s.agg->TagTotals();
  if (!s.options.tag_keys.empty()) {
    std::string rows, sums, ns;
    for (const auto& [tag, t] : tags) {
      size_t eq = tag.find('=');
      std::string labels = "tag_key=\"" + Label(tag.substr(0, eq)) + "\",tag_value=\"" +
                           Label(tag.substr(eq + 1)) + "\"";
      rows += "tala_tag_rows_ingested_total{" + labels + "} " + std::to_string(t.ingested) + "\n";
      for (const auto& [metric, sum] : t.metrics) {
        std::string ml = "{metric=\"" + Label(metric) + "\"," + labels + "}";
        sums += "tala_tag_metric_value_sum_total" + ml + " " + Number(sum.sum) + "\n";
        ns += "tala_tag_metric_value_count_total" + ml + " " + std::to_string(sum.n) + "\n";
      }
    }
    head("tala_tag_rows_ingested_total", "counter", "Rows ingested, by tag.");
    out += rows;
    head("tala_tag_metric_value_sum_total", "counter", "Sum of a metric's values, by tag.");
    out += sums;
    head("tala_tag_metric_value_count_total", "counter", "Rows with a value of a metric, by tag.");
    out += ns;
  }
  counter("tala_tag_values_capped_total",
          "Rows whose tag value was past max_tag_values for its key (aggregated without it).",
          s.agg->capped());

  // HTTP, by route and status, and how long requests took.
  {
    std::lock_guard<std::mutex> lock(s.stats_mu);
    head("tala_http_requests_total", "counter", "HTTP requests answered, by route and status.");
    for (const auto& [key, n] : s.http_requests) {
      out += "tala_http_requests_total{route=\"" + Label(key.first) + "\",code=\"" +
             std::to_string(key.second) + "\"} " + std::to_string(n) + "\n";
    }
    head("tala_http_request_duration_seconds", "histogram", "Time to answer an HTTP request.");
    for (const auto& [route, h] : s.http_durations) {
      const std::string r = "route=\"" + Label(route) + "\"";
      int64_t cumulative = 0;
      for (size_t b = 0; b < h.buckets.size(); ++b) {
        cumulative += h.buckets[b];
        std::string le = b < kHttpBuckets.size() ? Number(kHttpBuckets[b]) : "+Inf";
        out += "tala_http_request_duration_seconds_bucket{" + r + ",le=\"" + le + "\"} " +
               std::to_string(cumulative) + "\n";
      }
      out += "tala_http_request_duration_seconds_sum{" + r + "} " + Number(h.seconds) + "\n";
      out +=
          "tala_http_request_duration_seconds_count{" + r + "} " + std::to_string(h.count) + "\n";
    }
  }
  out += ProcessSeries(s.started);
  return out;
}

void Service::RecordHttp(const std::string& route, int status, double seconds) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.stats_mu);
  ++s.http_requests[{route, status}];
  Impl::HttpSeries& h = s.http_durations[route];
  size_t b = 0;
  while (b < kHttpBuckets.size() && seconds > kHttpBuckets[b]) ++b;
  ++h.buckets[b];
  ++h.count;
  h.seconds += seconds;
}

Result<std::vector<StoredRow>> Service::Rows(const RowQuery& q) {
  Impl& s = *impl_;
  if (q.max_score && q.metric.empty()) {
    return InvalidArgument("max_score needs the metric it applies to (metric=NAME)");
  }
  if (!q.metric.empty()) {
    bool known = false;
    for (const auto& m : s.metrics) known = known || m->key() == q.metric;
    if (!known) return InvalidArgument("metric " + q.metric + " is not among the served ones");
  }
  std::string sql = "SELECT r.result, r.body FROM rows r";
  if (!q.metric.empty()) sql += " JOIN scores c ON c.seq = r.seq AND c.metric = ?3";
  // With a metric, the scores' (metric, ts) index finds the window's rows (a score carries its
  // row's time); without, the rows' own.
  sql += q.metric.empty() ? " WHERE r.state IN ('scored', 'failed') AND r.ts >= ?1"
                          : " WHERE r.state IN ('scored', 'failed') AND c.ts >= ?1";
  if (q.max_score) sql += " AND c.value <= ?4";
  sql += q.worst_first && !q.metric.empty() ? " ORDER BY c.value, r.seq LIMIT ?2"
                                            : " ORDER BY r.seq LIMIT ?2";
  std::lock_guard<std::mutex> lock(s.mu);
  Stmt rows(s.db, sql.c_str());
  if (!rows) return IoError(std::string("rows: ") + sqlite3_errmsg(s.db));
  rows.Real(1, q.since);
  rows.Int(2, q.limit);
  if (!q.metric.empty()) rows.Text(3, q.metric);
  if (q.max_score) rows.Real(4, *q.max_score);
  std::vector<StoredRow> out;
  while (rows.Step()) out.push_back({rows.Column(0), rows.Column(1)});
  return out;
}

Result<std::string> Service::SeriesJson(int64_t window_seconds, int buckets, double now) {
  Impl& s = *impl_;
  if (window_seconds <= 0 || buckets < 1) return InvalidArgument("series: empty window");
  const double since = now - static_cast<double>(window_seconds);
  const double width = static_cast<double>(window_seconds) / buckets;
  std::vector<std::map<std::string, MetricWindow>> values(buckets);
  std::vector<std::vector<std::pair<std::string, int64_t>>> mix(buckets);
  // From the aggregates: the chart costs the minutes it spans, not the rows.
  std::vector<serve::Tally> tallies = s.agg->Series(since, width, buckets, "");
  for (int b = 0; b < buckets; ++b) {
    for (const auto& [metric, sums] : tallies[b].metrics) {
      values[b][metric] = {sums.n, sums.sum, sums.squares};
    }
    for (const auto& [d, n] : tallies[b].diagnoses) mix[b].emplace_back(d, n);
  }
  // The backlog now, and each bucket's ingested and scored rows: the ingest rate and whether
  // scoring keeps up.
  std::string out = "{\"start\":" + Number(since) + ",\"seconds\":" + Number(width) +
                    ",\"pending\":" + std::to_string(s.agg->Totals().pending()) +
                    ",\"lag\":" + Number(ScoringLag(now)) + ",\"buckets\":[";
  for (int b = 0; b < buckets; ++b) {
    out += b ? ",{\"t\":" : "{\"t\":";
    out += Number(since + b * width) + ",\"ingested\":" + std::to_string(tallies[b].ingested) +
           ",\"scored\":" + std::to_string(tallies[b].scored) +
           ",\"conversations\":" + std::to_string(tallies[b].conversations) +
           ",\"turns\":" + std::to_string(tallies[b].turns) + ",\"metrics\":{";
    bool first = true;
    for (const auto& metric : s.metrics) {
      auto it = values[b].find(metric->key());
      if (it == values[b].end()) continue;
      const MetricWindow& m = it->second;
      double mean = m.sum / static_cast<double>(m.n);
      double var = m.n > 1 ? std::max(0.0, (m.squares - m.sum * mean) / (m.n - 1.0)) : 0;
      double half = 1.959963984540054 * std::sqrt(var / static_cast<double>(m.n));
      if (!first) out += ',';
      first = false;
      io::AppendJsonString(out, metric->key());
      out += ":{\"n\":" + std::to_string(m.n) + ",\"mean\":" + Number(mean) + ",\"ci\":[" +
             Number(std::max(0.0, mean - half)) + "," + Number(std::min(1.0, mean + half)) + "]}";
    }
    out += "},\"diagnoses\":{";
    for (size_t i = 0; i < mix[b].size(); ++i) {
      if (i) out += ',';
      io::AppendJsonString(out, mix[b][i].first);
      out += ':' + std::to_string(mix[b][i].second);
    }
    out += "}}";
  }
  return out + "]}";
}

}  // namespace tala
