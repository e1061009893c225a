#include "history/local_store.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <set>

#include "history/history_json.h"
#include "io/writers/json_text.h"
#include "metrics/registry.h"
#include "runtime/sql_statement.h"

namespace tala::history {

namespace {

using Stmt = runtime::SqlStatement;

constexpr const char* kSchema =
    "PRAGMA auto_vacuum=INCREMENTAL;"  // takes effect only in a new file
    "PRAGMA journal_mode=WAL;"
    "CREATE TABLE IF NOT EXISTS history_runs (id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " results_sha256 TEXT NOT NULL UNIQUE, time TEXT NOT NULL, run TEXT NOT NULL,"
    " ids BLOB NOT NULL);"
    "CREATE TABLE IF NOT EXISTS history_values (run_id INTEGER NOT NULL, metric TEXT NOT NULL,"
    " vals BLOB NOT NULL, PRIMARY KEY (run_id, metric));"
    "CREATE TABLE IF NOT EXISTS history_changes (run_id INTEGER NOT NULL, metric TEXT NOT NULL,"
    " base_id INTEGER NOT NULL, pairs INTEGER NOT NULL, change REAL, low REAL, high REAL,"
    " PRIMARY KEY (run_id, metric, base_id));";

// Ids as a blob: each a 4-byte length, then its bytes (an id may hold any character).
std::string PackIds(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) {
    uint32_t n = static_cast<uint32_t>(id.size());
    out.append(reinterpret_cast<const char*>(&n), sizeof n);
    out += id;
  }
  return out;
}

bool UnpackIds(const void* data, size_t size, std::vector<std::string>& out) {
  const char* p = static_cast<const char*>(data);
  size_t at = 0;
  while (at + 4 <= size) {
    uint32_t n = 0;
    std::memcpy(&n, p + at, 4);
    at += 4;
    if (at + n > size) return false;
    out.emplace_back(p + at, n);
    at += n;
  }
  return at == size;
}

void Blob(Stmt& s, int i, const void* data, size_t size) {
  sqlite3_bind_blob64(s.get(), i, data, size, SQLITE_TRANSIENT);
}

// Seconds since the epoch of "2026-12-02T17:05:00Z" (UTC); -1 when it is not that shape.
double EpochOf(const std::string& iso) {
  std::tm tm{};
  if (iso.size() < 19 ||
      std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6) {
    return -1;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm));
}

bool HasTags(const HistoryRun& run, const HistoryTags& tags) {
  for (const auto& tag : tags) {
    if (std::find(run.tags.begin(), run.tags.end(), tag) == run.tags.end()) return false;
  }
  return true;
}

const HistoryMetric* MetricOf(const HistoryRun& run, const std::string& key) {
  for (const HistoryMetric& m : run.metrics) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

}  // namespace

Result<std::string> KeyOfMetric(const std::vector<HistoryRun>& runs, const std::string& metric) {
  std::set<std::string> keys;
  for (const HistoryRun& run : runs) {
    for (const HistoryMetric& m : run.metrics) keys.insert(m.key);
  }
  if (keys.count(metric)) return metric;
  std::set<std::string> meant;
  if (const auto* entry = metrics::FindMetricOfKey(metric)) {
    for (const std::string& key : keys) {
      if (metrics::FindMetricOfKey(key) == entry) meant.insert(key);
    }
  }
  auto list = [](const std::set<std::string>& s) {
    std::string out;
    for (const std::string& k : s) out += (out.empty() ? "" : ", ") + k;
    return out;
  };
  if (meant.size() == 1) return *meant.begin();
  if (meant.size() > 1) {
    return InvalidArgument("--metric " + metric + " stands for several stored metrics (" +
                           list(meant) + "); name one");
  }
  if (keys.empty()) return NotFound("the history holds no run (add one with tala history add)");
  return NotFound("no stored run scored " + metric + "; the runs have: " + list(keys));
}

Result<Trend> BuildTrend(const std::vector<HistoryRun>& runs, const std::string& key,
                         double min_effect, const ChangeOf& change_of) {
  Trend t;
  t.metric = key;
  t.min_effect = min_effect;
  const HistoryRun* previous = nullptr;
  const HistoryMetric* previous_metric = nullptr;
  int segment = 0;
  for (const HistoryRun& run : runs) {
    const HistoryMetric* m = MetricOf(run, key);
    if (m == nullptr) continue;
    t.direction = m->direction;
    TrendPoint p;
    p.run = run;
    p.run.metrics.clear();
    p.scored = m->scored;
    p.mean = m->mean;
    p.ci_low = m->ci_low;
    p.ci_high = m->ci_high;
    if (previous != nullptr) {
      // Runs on other data, by another judge or with another definition of the metric measure
      // something else: the trend starts over rather than compare them.
      if (run.golden_digest != previous->golden_digest) {
        p.new_segment = "another dataset";
      } else if (run.judge != previous->judge) {
        p.new_segment = "another judge (" + run.judge + ")";
      } else if (m->version != previous_metric->version) {
        p.new_segment = "another version of the metric (" + m->version + ")";
      }
      if (!p.new_segment.empty()) ++segment;
    }
    p.segment = segment;
    if (previous != nullptr && p.new_segment.empty()) {
      TALA_ASSIGN_OR_RETURN(PairedChange c, change_of(run.id, previous->id));
      if (c.pairs > 0) {
        p.compared = true;
        p.base_id = previous->id;
        p.pairs = c.pairs;
        p.change = c.change;
        p.change_low = c.low;
        p.change_high = c.high;
        const bool lower = m->direction == Direction::kLowerIsBetter;
        p.drop = lower ? c.low > 0 && c.change > min_effect : c.high < 0 && -c.change > min_effect;
      }
    }
    previous = &run;
    previous_metric = m;
    t.points.push_back(std::move(p));
  }
  return t;
}

Result<std::unique_ptr<LocalHistory>> LocalHistory::OpenFile(const std::string& path) {
  std::error_code ec;
  auto folder = std::filesystem::path(path).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  std::unique_ptr<LocalHistory> h(new LocalHistory());
  h->path_ = path;
  if (sqlite3_open_v2(path.c_str(), &h->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    return IoError(path + ": cannot open the history store: " +
                   (h->db_ ? sqlite3_errmsg(h->db_) : "out of memory"));
  }
  sqlite3_busy_timeout(h->db_, 10000);
  TALA_RETURN_IF_ERROR(h->Exec(kSchema));
  return h;
}

LocalHistory::~LocalHistory() {
  if (db_ != nullptr) sqlite3_close(db_);
}

Status LocalHistory::Exec(const char* sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &error);
  std::string message = error ? error : "";
  sqlite3_free(error);
  if (rc == SQLITE_NOTADB) {
    return BadData(path_ +
                   ": not a SQLite database, so not a history store (--store names the "
                   "history's own file, such as .tala/history.sqlite)");
  }
  return rc == SQLITE_OK ? OkStatus() : IoError(path_ + ": " + message);
}

Result<HistoryAdded> LocalHistory::Add(const HistoryAddOptions& options) {
  TALA_ASSIGN_OR_RETURN(RunCapture capture, CaptureRun(options));
  return AddCapture(std::move(capture));
}

Result<HistoryAdded> LocalHistory::AddCapture(RunCapture c) {
  HistoryAdded out;
  TALA_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  auto fail = [this](const std::string& what) {
    // The reason first: the rollback clears it (R8: "cannot store the run: not an error").
    const std::string why = sqlite3_errmsg(db_);
    Exec("ROLLBACK");
    return IoError(path_ + ": " + what + ": " + why);
  };
  {
    Stmt find(db_, "SELECT id, run FROM history_runs WHERE results_sha256 = ?");
    find.Text(1, c.run.results_sha256);
    if (find.Step()) {
      auto run = ParseRunJson(find.Column(1), path_ + ": run " + find.Column(0));
      Exec("ROLLBACK");
      TALA_RETURN_IF_ERROR(run);
      out.run = std::move(*run);
      out.run.id = sqlite3_column_int64(find.get(), 0);
      return out;
    }
  }
  c.run.id = 0;
  std::string json;
  AppendRunJson(json, c.run);
  std::string ids = PackIds(c.ids);
  Stmt insert(db_, "INSERT INTO history_runs (results_sha256, time, run, ids) VALUES (?,?,?,?)");
  insert.Text(1, c.run.results_sha256);
  insert.Text(2, c.run.time);
  insert.Text(3, json);
  Blob(insert, 4, ids.data(), ids.size());
  if (insert.Done() != SQLITE_DONE) return fail("cannot store the run");
  c.run.id = sqlite3_last_insert_rowid(db_);
  Stmt values(db_, "INSERT INTO history_values (run_id, metric, vals) VALUES (?,?,?)");
  for (const auto& [key, column] : c.values) {
    values.Reset();
    values.Int(1, c.run.id);
    values.Text(2, key);
    Blob(values, 3, column.data(), column.size() * sizeof(double));
    if (values.Done() != SQLITE_DONE) return fail("cannot store the run's scores");
  }
  if (Status s = Exec("COMMIT"); !s.ok()) return fail("cannot store the run");
  out.added = true;
  out.run = std::move(c.run);
  // Each metric's change against its predecessor, worked out now, so the first `show` after
  // many adds reads it.
  TALA_ASSIGN_OR_RETURN(std::vector<HistoryRun> all, LoadRuns({}));
  for (const HistoryMetric& m : out.run.metrics) {
    TALA_RETURN_IF_ERROR(TrendOver(all, m.key, 0));
  }
  return out;
}

Result<std::vector<HistoryRun>> LocalHistory::LoadRuns(const HistoryTags& tags) {
  Stmt s(db_, "SELECT id, run FROM history_runs ORDER BY time, id");
  if (!s) return IoError(path_ + ": " + sqlite3_errmsg(db_));
  std::vector<HistoryRun> runs;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    TALA_ASSIGN_OR_RETURN(HistoryRun run,
                          ParseRunJson(s.Column(1), path_ + ": run " + s.Column(0)));
    run.id = sqlite3_column_int64(s.get(), 0);
    if (HasTags(run, tags)) runs.push_back(std::move(run));
  }
  if (rc != SQLITE_DONE) return IoError(path_ + ": " + sqlite3_errmsg(db_));
  return runs;
}

Result<std::vector<HistoryRun>> LocalHistory::Runs(const HistoryTags& tags) {
  return LoadRuns(tags);
}

Result<std::shared_ptr<const std::vector<std::string>>> LocalHistory::Ids(int64_t run) {
  if (auto it = ids_.find(run); it != ids_.end()) return it->second;
  Stmt s(db_, "SELECT ids FROM history_runs WHERE id = ?");
  s.Int(1, run);
  if (!s.Step()) return NotFound(path_ + ": no run " + std::to_string(run));
  auto ids = std::make_shared<std::vector<std::string>>();
  if (!UnpackIds(sqlite3_column_blob(s.get(), 0),
                 static_cast<size_t>(sqlite3_column_bytes(s.get(), 0)), *ids)) {
    return BadData(path_ + ": run " + std::to_string(run) + ": its row ids are damaged");
  }
  // Each run is needed twice in a trend (as a run, then as the next one's base).
  if (ids_.size() > 8) ids_.clear();
  ids_[run] = ids;
  return std::shared_ptr<const std::vector<std::string>>(ids);
}

Result<std::vector<double>> LocalHistory::Values(int64_t run, const std::string& metric) {
  Stmt s(db_, "SELECT vals FROM history_values WHERE run_id = ? AND metric = ?");
  s.Int(1, run);
  s.Text(2, metric);
  if (!s.Step()) return std::vector<double>();
  const size_t bytes = static_cast<size_t>(sqlite3_column_bytes(s.get(), 0));
  std::vector<double> v(bytes / sizeof(double));
  if (bytes) std::memcpy(v.data(), sqlite3_column_blob(s.get(), 0), v.size() * sizeof(double));
  return v;
}

Result<Trend> LocalHistory::TrendOver(const std::vector<HistoryRun>& runs, const std::string& key,
                                      double min_effect) {
  std::map<std::pair<int64_t, int64_t>, PairedChange> known;
  {
    Stmt s(db_,
           "SELECT run_id, base_id, pairs, change, low, high FROM history_changes"
           " WHERE metric = ?");
    s.Text(1, key);
    while (s.Step()) {
      PairedChange c;
      c.pairs = sqlite3_column_int64(s.get(), 2);
      c.change = sqlite3_column_double(s.get(), 3);
      c.low = sqlite3_column_double(s.get(), 4);
      c.high = sqlite3_column_double(s.get(), 5);
      known[{sqlite3_column_int64(s.get(), 0), sqlite3_column_int64(s.get(), 1)}] = c;
    }
  }
  auto change_of = [&](int64_t run, int64_t base) -> Result<PairedChange> {
    if (auto it = known.find({run, base}); it != known.end()) return it->second;
    TALA_ASSIGN_OR_RETURN(auto run_ids, Ids(run));
    TALA_ASSIGN_OR_RETURN(auto base_ids, Ids(base));
    TALA_ASSIGN_OR_RETURN(std::vector<double> run_values, Values(run, key));
    TALA_ASSIGN_OR_RETURN(std::vector<double> base_values, Values(base, key));
    PairedChange c = ChangeBetween(*base_ids, base_values, *run_ids, run_values);
    Stmt put(db_, "INSERT OR REPLACE INTO history_changes VALUES (?,?,?,?,?,?,?)");
    put.Int(1, run);
    put.Text(2, key);
    put.Int(3, base);
    put.Int(4, c.pairs);
    put.Real(5, c.change);
    put.Real(6, c.low);
    put.Real(7, c.high);
    put.Done();  // a read-only store still answers; it only recomputes next time
    return c;
  };
  return BuildTrend(runs, key, min_effect, change_of);
}

Result<Trend> LocalHistory::TrendOf(const TrendOptions& o) {
  TALA_ASSIGN_OR_RETURN(std::vector<HistoryRun> runs, LoadRuns(o.tags));
  TALA_ASSIGN_OR_RETURN(std::string key, KeyOfMetric(runs, o.metric));
  return TrendOver(runs, key, o.min_effect);
}

Result<int64_t> LocalHistory::Prune(const HistoryPrune& o) {
  TALA_ASSIGN_OR_RETURN(std::vector<HistoryRun> runs, LoadRuns({}));
  std::vector<int64_t> remove;
  const double cutoff = o.older_than_days >= 0
                            ? static_cast<double>(std::time(nullptr)) - o.older_than_days * 86400
                            : -1;
  const int64_t n = static_cast<int64_t>(runs.size());
  for (int64_t i = 0; i < n; ++i) {
    const bool beyond_keep = o.keep >= 0 && i < n - o.keep;
    const double at = EpochOf(runs[i].time);
    const bool too_old = cutoff >= 0 && at >= 0 && at < cutoff;
    if (beyond_keep || too_old) remove.push_back(runs[i].id);
  }
  if (remove.empty()) return int64_t{0};
  TALA_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  Stmt runs_del(db_, "DELETE FROM history_runs WHERE id = ?");
  Stmt values_del(db_, "DELETE FROM history_values WHERE run_id = ?");
  Stmt changes_del(db_, "DELETE FROM history_changes WHERE run_id = ? OR base_id = ?");
  for (int64_t id : remove) {
    for (Stmt* s : {&runs_del, &values_del, &changes_del}) {
      s->Reset();
      s->Int(1, id);
      if (s == &changes_del) s->Int(2, id);
      if (s->Done() != SQLITE_DONE) {
        std::string message = sqlite3_errmsg(db_);
        Exec("ROLLBACK");
        return IoError(path_ + ": cannot prune: " + message);
      }
    }
  }
  TALA_RETURN_IF_ERROR(Exec("COMMIT"));
  ids_.clear();
  Exec("PRAGMA incremental_vacuum");  // gives the freed pages back, where the file allows
  return static_cast<int64_t>(remove.size());
}

Result<std::string> LocalHistory::PageHtml(const TrendOptions& o) {
  TALA_ASSIGN_OR_RETURN(std::vector<HistoryRun> runs, LoadRuns(o.tags));
  std::vector<std::string> keys;
  if (!o.metric.empty()) {
    TALA_ASSIGN_OR_RETURN(std::string key, KeyOfMetric(runs, o.metric));
    keys.push_back(key);
  } else {
    for (const HistoryRun& run : runs) {
      for (const HistoryMetric& m : run.metrics) {
        if (std::find(keys.begin(), keys.end(), m.key) == keys.end()) keys.push_back(m.key);
      }
    }
  }
  std::vector<Trend> trends;
  for (const std::string& key : keys) {
    TALA_ASSIGN_OR_RETURN(Trend t, TrendOver(runs, key, o.min_effect));
    trends.push_back(std::move(t));
  }
  // Per-row scores for comparing any two runs in the page, when they fit in a page.
  constexpr int64_t kMaxValues = 400000;
  int64_t total = 0;
  for (const HistoryRun& run : runs) total += run.rows * static_cast<int64_t>(keys.size() + 1);
  std::string values;
  if (total <= kMaxValues) {
    std::string ids_json = "{", values_json = "{";
    for (size_t r = 0; r < runs.size(); ++r) {
      const std::string id = std::to_string(runs[r].id);
      TALA_ASSIGN_OR_RETURN(auto ids, Ids(runs[r].id));
      ids_json += (r ? ",\"" : "\"") + id + "\":[";
      for (size_t i = 0; i < ids->size(); ++i) {
        if (i) ids_json += ',';
        io::AppendJsonString(ids_json, (*ids)[i]);
      }
      ids_json += ']';
      values_json += (r ? ",\"" : "\"") + id + "\":{";
      bool first = true;
      for (const std::string& key : keys) {
        if (MetricOf(runs[r], key) == nullptr) continue;
        TALA_ASSIGN_OR_RETURN(std::vector<double> v, Values(runs[r].id, key));
        values_json += first ? "" : ",";
        first = false;
        io::AppendJsonString(values_json, key);
        values_json += ":[";
        for (size_t i = 0; i < v.size(); ++i) {
          if (i) values_json += ',';
          if (std::isfinite(v[i])) {
            io::AppendJsonNumber(values_json, std::round(v[i] * 1e6) / 1e6);
          } else {
            values_json += "null";
          }
        }
        values_json += ']';
      }
      values_json += '}';
    }
    values = "{\"ids\":" + ids_json + "},\"values\":" + values_json + "}}";
  }
  std::string production;
  if (production_ && !runs.empty()) {
    // To the second after now: rows stamped this very second are in.
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() +
        1;
    double from = now - 86400;
    for (const HistoryRun& run : runs) {
      double at = EpochOf(run.time);
      if (at >= 0) from = std::min(from, at);
    }
    from = std::max(from, now - 90 * 86400.0);  // the serve keeps its windows, not forever
    TALA_ASSIGN_OR_RETURN(production, production_(from, now));
  }
  return RenderHistoryPage(runs, trends, values, production);
}

}  // namespace tala::history
