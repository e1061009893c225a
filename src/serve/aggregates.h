#pragma once
// What the windows, /metrics and the dashboard read instead of the rows: per minute of event
// time and per tag (all rows, and each value of the configured tag keys), how many rows were
// ingested, sampled, scored, failed or skipped, each metric's count, sum and sum of squares, and
// the diagnosis mix; and, over all time, a histogram of each metric's values. Kept in memory
// and in the database's `agg` table, changed in the same transaction as the rows (Stage), in
// memory once it committed (Apply), and rebuilt from the rows when the table is new. A scrape
// reads memory under its own lock: it never waits on ingest's disk writes, and costs the
// minutes of its windows, not the rows.

#include <simdjson.h>
#include <sqlite3.h>

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tala/status.h"

namespace tala::serve {

struct Sums {
  int64_t n = 0;
  double sum = 0, squares = 0;
  void Add(double v) {
    ++n;
    sum += v;
    squares += v * v;
  }
  void Add(const Sums& o) {
    n += o.n;
    sum += o.sum;
    squares += o.squares;
  }
};

// What a stretch of time holds for one set of rows.
struct Tally {
  int64_t ingested = 0, sampled = 0, scored = 0, failed = 0, skipped = 0;
  // Of the rows ingested, conversations (a session's turns joined, or a row listing messages)
  // and their turns (answers).
  int64_t conversations = 0, turns = 0;
  int64_t duplicates = 0;  // repeats of a stored id: acknowledged, not stored again
  std::map<std::string, Sums> metrics;
  std::map<std::string, int64_t> diagnoses;
  int64_t pending() const { return std::max<int64_t>(0, sampled - scored - failed - skipped); }
  void Add(const Tally& o);
};

// The upper bounds of the value histogram's buckets (+Inf is implied): every built-in metric's
// values lie in [0, 1].
inline constexpr std::array<double, 10> kValueBuckets = {0.1, 0.2, 0.3, 0.4, 0.5,
                                                         0.6, 0.7, 0.8, 0.9, 1.0};
struct Histogram {
  std::array<int64_t, kValueBuckets.size() + 1> counts{};  // per bucket, not cumulative; +Inf last
  double sum = 0;
  int64_t count = 0;
  void Add(double v);
};

// The changes of one transaction.
struct AggDelta {
  std::map<std::pair<int64_t, std::string>, Tally> minutes;  // (minute, tag) -> what it adds
  std::map<std::string, Histogram> histograms;
  int64_t capped = 0;  // tag values past the cap, not aggregated by tag
};

// SQL over a stored row's body (rows.body; `body` names it): the conversation's answered turns
// (ai messages with text), 0 for a row that is not a conversation. What Ingested counts, for
// reading the rows themselves (a rebuild, a summary by a tag not broken down).
std::string TurnsOfBodySql(const std::string& body);

class Aggregates {
 public:
  // `tag_keys`: the tags broken down ("route", "app_version"); at most `max_values` values each
  // (more are counted in capped(), and aggregated only with all rows).
  Aggregates(std::vector<std::string> tag_keys, int max_values);

  // Creates the tables; loads them, or builds them from `rows` and `scores` when new.
  // REQUIRES: no other writer yet.
  Status Open(sqlite3* db);

  // The tags a row's tags object (JSON) is counted under: "" and "key=value" of configured keys.
  std::vector<std::string> TagsOf(std::string_view tags_json, AggDelta& delta);
  // `turns`: a conversation's answered turns; 0 for a row that is not one.
  static void Ingested(AggDelta& d, double ts, const std::vector<std::string>& tags, bool sampled,
                       int64_t turns = 0);
  // A repeated id, counted at the time it came in, for all rows only.
  static void Duplicate(AggDelta& d, double now);
  static void Scored(AggDelta& d, double ts, const std::vector<std::string>& tags,
                     const std::string& state, const std::string& diagnosis,
                     const std::vector<std::pair<std::string, double>>& values);
  // Writes `delta` into the agg tables. REQUIRES: inside the caller's transaction.
  static Status Stage(sqlite3* db, const AggDelta& delta);
  // Adds `delta` to memory. Call after the transaction committed.
  void Apply(const AggDelta& delta);

  // The rows stamped in [since, until] (whole minutes), for all rows ("") or one tag.
  Tally Window(double since, double until, const std::string& tag) const;
  // `buckets` consecutive stretches of `width` seconds from `since`.
  std::vector<Tally> Series(double since, double width, int buckets, const std::string& tag) const;
  Tally Totals() const;
  std::map<std::string, Histogram> Histograms() const;
  // Per tag ("key=value"), all time.
  std::map<std::string, Tally> TagTotals() const;
  int64_t capped() const;
  bool Breaks(const std::string& tag_key) const;
  const std::vector<std::string>& tag_keys() const { return tag_keys_; }

 private:
  Status Load(sqlite3* db);
  Status Rebuild(sqlite3* db);
  std::vector<std::string> tag_keys_;
  int max_values_;
  mutable std::mutex mu_;
  std::map<std::string, std::map<int64_t, Tally>> by_tag_;  // tag -> minute -> tally
  std::map<std::string, Tally> tag_totals_;
  Tally totals_;
  std::map<std::string, Histogram> histograms_;
  std::map<std::string, std::set<std::string>> values_seen_;  // tag key -> values aggregated
  simdjson::dom::parser parser_;                              // TagsOf's, under mu_
  int64_t capped_ = 0;
};

}  // namespace tala::serve
