#include "serve/aggregates.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>

#include "runtime/sql_statement.h"

namespace tala::serve {

namespace {

using Stmt = runtime::SqlStatement;

// One row per (minute, tag, field): field is ingested, sampled, scored, failed, skipped,
// "m:METRIC" (count, sum, sum of squares) or "d:DIAGNOSIS"; the histograms are minute -1, tag
// "", field "h:METRIC:BUCKET" (sum and count in "hs:METRIC"). agg_info says the table is built.
constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS agg (minute INTEGER NOT NULL, tag TEXT NOT NULL,"
    " field TEXT NOT NULL, n INTEGER NOT NULL, sum REAL NOT NULL, squares REAL NOT NULL,"
    " PRIMARY KEY (minute, tag, field)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS agg_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);";

int64_t MinuteOf(double ts) { return static_cast<int64_t>(std::floor(ts / 60)); }

void AddField(Tally& t, const std::string& field, int64_t n, double sum, double squares) {
  if (field == "ingested") {
    t.ingested += n;
  } else if (field == "sampled") {
    t.sampled += n;
  } else if (field == "scored") {
    t.scored += n;
  } else if (field == "failed") {
    t.failed += n;
  } else if (field == "skipped") {
    t.skipped += n;
  } else if (field == "duplicates") {
    t.duplicates += n;
  } else if (field == "conversations") {
    t.conversations += n;
  } else if (field == "turns") {
    t.turns += n;
  } else if (field.rfind("m:", 0) == 0) {
    t.metrics[field.substr(2)].Add(Sums{n, sum, squares});
  } else if (field.rfind("d:", 0) == 0) {
    t.diagnoses[field.substr(2)] += n;
  }
}

}  // namespace

void Tally::Add(const Tally& o) {
  ingested += o.ingested;
  sampled += o.sampled;
  scored += o.scored;
  failed += o.failed;
  skipped += o.skipped;
  duplicates += o.duplicates;
  conversations += o.conversations;
  turns += o.turns;
  for (const auto& [k, s] : o.metrics) metrics[k].Add(s);
  for (const auto& [k, n] : o.diagnoses) diagnoses[k] += n;
}

void Histogram::Add(double v) {
  size_t b = 0;
  while (b < kValueBuckets.size() && v > kValueBuckets[b]) ++b;
  ++counts[b];
  sum += v;
  ++count;
}

Aggregates::Aggregates(std::vector<std::string> tag_keys, int max_values)
    : tag_keys_(std::move(tag_keys)), max_values_(max_values) {}

bool Aggregates::Breaks(const std::string& tag_key) const {
  return std::find(tag_keys_.begin(), tag_keys_.end(), tag_key) != tag_keys_.end();
}

std::vector<std::string> Aggregates::TagsOf(std::string_view tags_json, AggDelta& delta) {
  std::vector<std::string> out = {""};
  if (tag_keys_.empty() || tags_json.size() <= 2) return out;
  std::lock_guard<std::mutex> lock(mu_);
  // One parser for every row (a parser's buffers cost more than a small object's parse).
  simdjson::dom::object tags;
  if (parser_.parse(tags_json.data(), tags_json.size()).get_object().get(tags)) return out;
  for (const std::string& key : tag_keys_) {
    std::string_view value;
    if (tags[key].get_string().get(value)) continue;
    std::set<std::string>& seen = values_seen_[key];
    if (!seen.count(std::string(value))) {
      if (static_cast<int>(seen.size()) >= max_values_) {
        ++delta.capped;
        continue;
      }
      seen.insert(std::string(value));
    }
    out.push_back(key + "=" + std::string(value));
  }
  return out;
}

void Aggregates::Ingested(AggDelta& d, double ts, const std::vector<std::string>& tags,
                          bool sampled, int64_t turns) {
  const int64_t minute = MinuteOf(ts);
  for (const std::string& tag : tags) {
    Tally& t = d.minutes[{minute, tag}];
    ++t.ingested;
    if (sampled) ++t.sampled;
    if (turns > 0) {
      ++t.conversations;
      t.turns += turns;
    }
  }
}

std::string TurnsOfBodySql(const std::string& body) {
  return "(CASE WHEN json_valid(" + body + ") AND json_type(" + body +
         ", '$.user_input') = 'array' THEN (SELECT COUNT(*) FROM json_each(" + body +
         ", '$.user_input') WHERE json_extract(value, '$.type') = 'ai' AND "
         "trim(COALESCE(json_extract(value, '$.content'), '')) != '') ELSE 0 END)";
}

void Aggregates::Duplicate(AggDelta& d, double now) { ++d.minutes[{MinuteOf(now), ""}].duplicates; }

void Aggregates::Scored(AggDelta& d, double ts, const std::vector<std::string>& tags,
                        const std::string& state, const std::string& diagnosis,
                        const std::vector<std::pair<std::string, double>>& values) {
  const int64_t minute = MinuteOf(ts);
  for (const std::string& tag : tags) {
    Tally& t = d.minutes[{minute, tag}];
    if (state == "scored") {
      ++t.scored;
      ++t.diagnoses[diagnosis];
    } else if (state == "failed") {
      ++t.failed;
    } else {
      ++t.skipped;
    }
    for (const auto& [metric, v] : values) t.metrics[metric].Add(v);
  }
  for (const auto& [metric, v] : values) d.histograms[metric].Add(v);
}

Status Aggregates::Stage(sqlite3* db, const AggDelta& delta) {
  Stmt up(db,
          "INSERT INTO agg (minute, tag, field, n, sum, squares) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
          "ON CONFLICT (minute, tag, field) DO UPDATE SET n = n + excluded.n,"
          " sum = sum + excluded.sum, squares = squares + excluded.squares");
  if (!up) return IoError(std::string("aggregates: ") + sqlite3_errmsg(db));
  auto put = [&](int64_t minute, const std::string& tag, const std::string& field, int64_t n,
                 double sum, double squares) {
    if (n == 0) return true;
    up.Int(1, minute);
    up.Text(2, tag);
    up.Text(3, field);
    up.Int(4, n);
    up.Real(5, sum);
    up.Real(6, squares);
    bool ok = up.Done() == SQLITE_DONE;
    up.Reset();
    return ok;
  };
  bool ok = true;
  for (const auto& [key, t] : delta.minutes) {
    const auto& [minute, tag] = key;
    ok = ok && put(minute, tag, "ingested", t.ingested, 0, 0) &&
         put(minute, tag, "sampled", t.sampled, 0, 0) &&
         put(minute, tag, "scored", t.scored, 0, 0) && put(minute, tag, "failed", t.failed, 0, 0) &&
         put(minute, tag, "skipped", t.skipped, 0, 0) &&
         put(minute, tag, "duplicates", t.duplicates, 0, 0) &&
         put(minute, tag, "conversations", t.conversations, 0, 0) &&
         put(minute, tag, "turns", t.turns, 0, 0);
    for (const auto& [metric, s] : t.metrics) {
      ok = ok && put(minute, tag, "m:" + metric, s.n, s.sum, s.squares);
    }
    for (const auto& [diagnosis, n] : t.diagnoses) {
      ok = ok && put(minute, tag, "d:" + diagnosis, n, 0, 0);
    }
  }
  for (const auto& [metric, h] : delta.histograms) {
    for (size_t b = 0; b < h.counts.size(); ++b) {
      ok = ok && put(-1, "", "h:" + metric + ":" + std::to_string(b), h.counts[b], 0, 0);
    }
    ok = ok && put(-1, "", "hs:" + metric, h.count, h.sum, 0);
  }
  if (delta.capped) ok = ok && put(-1, "", "capped", delta.capped, 0, 0);
  return ok ? OkStatus() : IoError(std::string("aggregates: ") + sqlite3_errmsg(db));
}

void Aggregates::Apply(const AggDelta& delta) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, t] : delta.minutes) {
    const auto& [minute, tag] = key;
    by_tag_[tag][minute].Add(t);
    if (tag.empty()) {
      totals_.Add(t);
    } else {
      tag_totals_[tag].Add(t);
    }
  }
  for (const auto& [metric, h] : delta.histograms) {
    Histogram& into = histograms_[metric];
    for (size_t b = 0; b < h.counts.size(); ++b) into.counts[b] += h.counts[b];
    into.sum += h.sum;
    into.count += h.count;
  }
  capped_ += delta.capped;
}

Status Aggregates::Open(sqlite3* db) {
  char* error = nullptr;
  if (sqlite3_exec(db, kSchema, nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error ? error : "";
    sqlite3_free(error);
    return IoError("aggregates: " + message);
  }
  Stmt built(db, "SELECT value FROM agg_info WHERE key = 'tag_keys'");
  std::string keys;
  for (const std::string& k : tag_keys_) keys += k + ",";
  // Built for other tag keys (or never): built again from the rows, once.
  if (built.Step() && built.Column(0) == keys) return Load(db);
  return Rebuild(db);
}

Status Aggregates::Load(sqlite3* db) {
  Stmt all(db, "SELECT minute, tag, field, n, sum, squares FROM agg");
  AggDelta d;
  while (all.Step()) {
    const int64_t minute = sqlite3_column_int64(all.get(), 0);
    std::string tag = all.Column(1), field = all.Column(2);
    const int64_t n = sqlite3_column_int64(all.get(), 3);
    const double sum = sqlite3_column_double(all.get(), 4);
    const double squares = sqlite3_column_double(all.get(), 5);
    if (minute >= 0) {
      AddField(d.minutes[{minute, tag}], field, n, sum, squares);
      if (!tag.empty()) {
        size_t eq = tag.find('=');
        values_seen_[tag.substr(0, eq)].insert(tag.substr(eq + 1));
      }
    } else if (field == "capped") {
      d.capped += n;
    } else if (field.rfind("hs:", 0) == 0) {
      Histogram& h = d.histograms[field.substr(3)];
      h.count += n;
      h.sum += sum;
    } else if (field.rfind("h:", 0) == 0) {
      size_t colon = field.rfind(':');
      size_t b = std::stoul(field.substr(colon + 1));
      if (b < kValueBuckets.size() + 1) d.histograms[field.substr(2, colon - 2)].counts[b] += n;
    }
  }
  Apply(d);
  return OkStatus();
}

Status Aggregates::Rebuild(sqlite3* db) {
  // One pass over the rows and one over the scores: what an older database (or one whose tag
  // keys changed) holds becomes aggregates once, in one transaction.
  if (sqlite3_exec(db, "BEGIN IMMEDIATE; DELETE FROM agg;", nullptr, nullptr, nullptr) !=
      SQLITE_OK) {
    return IoError(std::string("aggregates: ") + sqlite3_errmsg(db));
  }
  AggDelta d;
  {
    Stmt rows(
        db, ("SELECT ts, tags, sampled, state, diagnosis, " + TurnsOfBodySql("body") + " FROM rows")
                .c_str());
    while (rows.Step()) {
      const double ts = sqlite3_column_double(rows.get(), 0);
      std::vector<std::string> tags = TagsOf(rows.Column(1), d);
      Ingested(d, ts, tags, sqlite3_column_int(rows.get(), 2) != 0,
               sqlite3_column_int64(rows.get(), 5));
      std::string state = rows.Column(3);
      if (state == "scored" || state == "failed" || state == "skipped") {
        Scored(d, ts, tags, state, rows.Column(4), {});
      }
    }
    Stmt scores(
        db, "SELECT r.ts, r.tags, c.metric, c.value FROM scores c JOIN rows r ON r.seq = c.seq");
    AggDelta ignored;  // the tags were counted (and capped) above
    while (scores.Step()) {
      const double ts = sqlite3_column_double(scores.get(), 0);
      std::vector<std::string> tags = TagsOf(scores.Column(1), ignored);
      const double v = sqlite3_column_double(scores.get(), 3);
      const std::string metric = scores.Column(2);
      const int64_t minute = MinuteOf(ts);
      for (const std::string& tag : tags) d.minutes[{minute, tag}].metrics[metric].Add(v);
      d.histograms[metric].Add(v);
    }
  }
  std::string keys;
  for (const std::string& k : tag_keys_) keys += k + ",";
  Stmt info(db, "INSERT OR REPLACE INTO agg_info (key, value) VALUES ('tag_keys', ?1)");
  info.Text(1, keys);
  Status staged = Stage(db, d);
  if (!staged.ok() || info.Done() != SQLITE_DONE ||
      sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    std::string message = sqlite3_errmsg(db);
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return IoError("aggregates: cannot build them from the rows: " + message);
  }
  Apply(d);  // TagsOf registered the tag values as it went
  return OkStatus();
}

Tally Aggregates::Window(double since, double until, const std::string& tag) const {
  Tally out;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_tag_.find(tag);
  if (it == by_tag_.end()) return out;
  const auto& minutes = it->second;
  for (auto m = minutes.lower_bound(MinuteOf(since));
       m != minutes.end() && m->first <= MinuteOf(until); ++m) {
    out.Add(m->second);
  }
  return out;
}

std::vector<Tally> Aggregates::Series(double since, double width, int buckets,
                                      const std::string& tag) const {
  std::vector<Tally> out(buckets);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_tag_.find(tag);
  if (it == by_tag_.end()) return out;
  const double until = since + width * buckets;
  const auto& minutes = it->second;
  for (auto m = minutes.lower_bound(MinuteOf(since));
       m != minutes.end() && m->first <= MinuteOf(until); ++m) {
    // A minute falls in the bucket its middle falls in.
    double mid = (static_cast<double>(m->first) + 0.5) * 60;
    int64_t b = static_cast<int64_t>(std::floor((mid - since) / width));
    out[std::clamp<int64_t>(b, 0, buckets - 1)].Add(m->second);
  }
  return out;
}

Tally Aggregates::Totals() const {
  std::lock_guard<std::mutex> lock(mu_);
  return totals_;
}

std::map<std::string, Histogram> Aggregates::Histograms() const {
  std::lock_guard<std::mutex> lock(mu_);
  return histograms_;
}

std::map<std::string, Tally> Aggregates::TagTotals() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tag_totals_;
}

int64_t Aggregates::capped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return capped_;
}

}  // namespace tala::serve
