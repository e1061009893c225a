// Service's rolling windows (SummaryJson) and their Prometheus exposition (PrometheusText).

#include <cctype>
#include <cmath>
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
  Stmt q(s.db,
         "SELECT COUNT(*), TOTAL(value) FROM scores WHERE metric = ?1 AND ts >= ?2 AND "
         "ts <= ?3");
  if (!q) return IoError(std::string("alerts: ") + sqlite3_errmsg(s.db));
  q.Text(1, metric);
  q.Real(2, since);
  q.Real(3, until);
  if (!q.Step()) return std::pair<int64_t, double>{0, 0};
  return std::pair<int64_t, double>{sqlite3_column_int64(q.get(), 0),
                                    sqlite3_column_double(q.get(), 1)};
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
  std::map<std::string, MetricWindow> metrics;
  std::vector<std::pair<std::string, int64_t>> diagnoses;
};

// REQUIRES: the caller holds impl.mu.
Result<Window> Query(Service::Impl& s, double since, double until, const std::optional<Tag>& tag) {
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
  Stmt counts(s.db,
              ("SELECT COUNT(*), TOTAL(r.sampled), TOTAL(r.state = 'scored'), "
               "TOTAL(r.state = 'failed'), TOTAL(r.state = 'pending'), TOTAL(r.state = 'skipped') "
               "FROM rows r" +
               where)
                  .c_str());
  if (!counts) return IoError(std::string("summary: ") + sqlite3_errmsg(s.db));
  bind(counts);
  if (counts.Step()) {
    w.ingested = sqlite3_column_int64(counts.get(), 0);
    w.sampled = static_cast<int64_t>(sqlite3_column_double(counts.get(), 1));
    w.scored = static_cast<int64_t>(sqlite3_column_double(counts.get(), 2));
    w.failed = static_cast<int64_t>(sqlite3_column_double(counts.get(), 3));
    w.pending = static_cast<int64_t>(sqlite3_column_double(counts.get(), 4));
    w.skipped = static_cast<int64_t>(sqlite3_column_double(counts.get(), 5));
  }
  Stmt values(s.db, ("SELECT c.metric, COUNT(*), TOTAL(c.value), TOTAL(c.value * c.value) FROM "
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
  Stmt mix(s.db, ("SELECT r.diagnosis, COUNT(*) FROM rows r" + where +
                  " AND r.state = 'scored' GROUP BY r.diagnosis ORDER BY COUNT(*) DESC")
                     .c_str());
  bind(mix);
  while (mix.Step()) w.diagnoses.emplace_back(mix.Column(0), sqlite3_column_int64(mix.get(), 1));
  return w;
}

std::string Number(double v) {
  std::string out;
  io::AppendJsonNumber(out, v);
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
  std::lock_guard<std::mutex> lock(s.mu);
  TALA_ASSIGN_OR_RETURN(Window w, Query(s, now - static_cast<double>(seconds), now, filter));
  std::string out = "{\"window\":";
  io::AppendJsonString(out, window);
  out += ",\"seconds\":" + std::to_string(seconds) + ",\"tag\":";
  io::AppendJsonString(out, tag);
  out += ",\"rows_ingested\":" + std::to_string(w.ingested) +
         ",\"rows_sampled\":" + std::to_string(w.sampled) +
         ",\"rows_scored\":" + std::to_string(w.scored) +
         ",\"rows_failed\":" + std::to_string(w.failed) +
         ",\"rows_pending\":" + std::to_string(w.pending) +
         ",\"rows_skipped\":" + std::to_string(w.skipped) + ",\"metrics\":{";
  bool first = true;
  for (const auto& metric : s.metrics) {
    auto it = w.metrics.find(metric->key());
    MetricWindow m = it == w.metrics.end() ? MetricWindow{} : it->second;
    if (!first) out += ',';
    first = false;
    io::AppendJsonString(out, metric->key());
    out += ":{\"n\":" + std::to_string(m.n);
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
  std::lock_guard<std::mutex> lock(s.mu);
  TALA_ASSIGN_OR_RETURN(Window all, Query(s, -1e300, 1e300, std::nullopt));
  std::string out;
  auto counter = [&](const char* name, const char* help, int64_t v) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " counter\n" + name +
           " " + std::to_string(v) + "\n";
  };
  counter("tala_rows_ingested_total", "Rows accepted and stored.", all.ingested);
  counter("tala_rows_sampled_total", "Rows chosen for scoring by the sample.", all.sampled);
  counter("tala_rows_scored_total", "Rows scored.", all.scored);
  counter("tala_rows_failed_total", "Rows whose scoring failed.", all.failed);
  counter("tala_rows_skipped_total", "Sampled rows skipped because the judge budget was spent.",
          all.skipped);
  {
    Stmt spend(s.db, "SELECT TOTAL(calls), TOTAL(cost) FROM judge_spend");
    double calls = 0, cost = 0;
    if (spend.Step()) {
      calls = sqlite3_column_double(spend.get(), 0);
      cost = sqlite3_column_double(spend.get(), 1);
    }
    counter("tala_judge_calls_total", "Model calls made by an LLM judge (cache hits excluded).",
            static_cast<int64_t>(calls));
    out +=
        "# HELP tala_judge_cost_usd_total What the judge calls cost, when the price is known.\n"
        "# TYPE tala_judge_cost_usd_total counter\ntala_judge_cost_usd_total " +
        Number(cost) + "\n";
  }
  out +=
      "# HELP tala_queue_depth Sampled rows waiting to be scored.\n"
      "# TYPE tala_queue_depth gauge\ntala_queue_depth " +
      std::to_string(s.pending) + "\n";
  out +=
      "# HELP tala_metric_mean Mean of a metric over the rows stamped within the window.\n"
      "# TYPE tala_metric_mean gauge\n";
  std::string counts =
      "# HELP tala_metric_rows Rows with a value of the metric within the window.\n"
      "# TYPE tala_metric_rows gauge\n";
  for (const auto& [name, seconds] : s.options.windows) {
    TALA_ASSIGN_OR_RETURN(Window w,
                          Query(s, now - static_cast<double>(seconds), now, std::nullopt));
    for (const auto& metric : s.metrics) {
      auto it = w.metrics.find(metric->key());
      MetricWindow m = it == w.metrics.end() ? MetricWindow{} : it->second;
      std::string labels = "{metric=\"" + metric->key() + "\",window=\"" + name + "\"}";
      if (m.n > 0) {
        out += "tala_metric_mean" + labels + " " + Number(m.sum / static_cast<double>(m.n)) + "\n";
      }
      counts += "tala_metric_rows" + labels + " " + std::to_string(m.n) + "\n";
    }
  }
  return out + counts;
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
  sql += " WHERE r.state IN ('scored', 'failed') AND r.ts >= ?1";
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
  {
    std::lock_guard<std::mutex> lock(s.mu);
    Stmt q(s.db,
           "SELECT CAST((ts - ?1) / ?2 AS INTEGER), metric, COUNT(*), TOTAL(value), "
           "TOTAL(value * value) FROM scores WHERE ts >= ?1 AND ts <= ?3 GROUP BY 1, 2");
    q.Real(1, since);
    q.Real(2, width);
    q.Real(3, now);
    while (q.Step()) {
      int64_t b = std::min<int64_t>(sqlite3_column_int64(q.get(), 0), buckets - 1);
      MetricWindow& m = values[b][q.Column(1)];
      m.n += sqlite3_column_int64(q.get(), 2);
      m.sum += sqlite3_column_double(q.get(), 3);
      m.squares += sqlite3_column_double(q.get(), 4);
    }
    Stmt d(s.db,
           "SELECT CAST((ts - ?1) / ?2 AS INTEGER), diagnosis, COUNT(*) FROM rows WHERE ts >= ?1 "
           "AND ts <= ?3 AND state = 'scored' GROUP BY 1, 2");
    d.Real(1, since);
    d.Real(2, width);
    d.Real(3, now);
    while (d.Step()) {
      int64_t b = std::min<int64_t>(sqlite3_column_int64(d.get(), 0), buckets - 1);
      mix[b].emplace_back(d.Column(1), sqlite3_column_int64(d.get(), 2));
    }
  }
  std::string out =
      "{\"start\":" + Number(since) + ",\"seconds\":" + Number(width) + ",\"buckets\":[";
  for (int b = 0; b < buckets; ++b) {
    out += b ? ",{\"t\":" : "{\"t\":";
    out += Number(since + b * width) + ",\"metrics\":{";
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
