#include "tala/gate.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/intervals.h"
#include "analysis/paired_comparison.h"
#include "io/readers/results_reader.h"
#include "metrics/registry.h"

namespace tala {

namespace {
bool LowerIsBetter(const io::ResultsFile& run, const std::string& key) {
  return io::DirectionIn(run, key) == Direction::kLowerIsBetter;
}

// The run's key for a gated metric, which may be named as --metrics names it: by an alias
// ("answer_relevancy" gates response_relevancy, "answer_relevancy@5" its cut-off key). A metric
// the run never scored is an error that lists what it has: a misspelt gate must not pass.
Result<std::string> KeyInRun(const io::ResultsFile& run, const std::string& key) {
  auto has = [&run](const std::string& k) {
    return std::find(run.metric_keys.begin(), run.metric_keys.end(), k) != run.metric_keys.end();
  };
  if (has(key)) return key;
  if (const metrics::RegistryEntry* entry = metrics::FindMetricOfKey(key)) {
    const size_t name_end = key.find_first_of("(@");
    const std::string rest = name_end == std::string::npos ? "" : key.substr(name_end);
    if (has(entry->info().name + rest)) return entry->info().name + rest;
  }
  std::string known;
  for (const std::string& k : run.metric_keys) known += (known.empty() ? "" : ", ") + k;
  return NotFound("the run has no metric " + key +
                  " (its metrics: " + (known.empty() ? "none" : known) + ")");
}

// The rows of a metric nobody could score: a gate over them fails, it does not error (a run
// whose answers all went undefined is the worst regression there is).
GateCheck NothingScored(const std::string& name, const std::string& what) {
  return {name, false, name + ": " + what};
}
}  // namespace

Result<std::vector<GateCheck>> Gate(const GateOptions& o) {
  if (o.min.empty() && o.max_drop.empty()) {
    return InvalidArgument("give at least one minimum (--min) or allowed drop (--max-drop)");
  }
  if (!o.max_drop.empty() && o.baseline.empty()) {
    return InvalidArgument("an allowed drop (--max-drop) needs a baseline results file");
  }
  TALA_ASSIGN_OR_RETURN(io::ResultsFile run, io::ReadResults(o.results));
  std::vector<GateCheck> checks;
  // A mean over the rows the judge could score says nothing of the rows it failed on: the
  // gate names them, and fails past max_failed_rows (F33).
  int64_t failed_rows = 0;
  for (const io::ResultRow& row : run.rows) {
    failed_rows += row.has_failures() ? 1 : 0;
  }
  for (const auto& [gated, bound] : o.min) {
    TALA_ASSIGN_OR_RETURN(std::string key, KeyInRun(run, gated));
    io::MetricColumn column = io::ColumnOf(run, key);
    auto st = analysis::Summarise(column.values);
    int64_t failed = 0;
    for (const io::ResultRow& row : run.rows) failed += row.failed_on(key) ? 1 : 0;
    const bool lower = LowerIsBetter(run, key);
    const char* op = lower ? "<=" : ">=";
    if (!st) {
      checks.push_back(NothingScored(
          fmt::format("{} {} {:g}", key, op, bound),
          fmt::format("no row scored: {} of {} rows undefined{}", column.nulls, run.rows.size(),
                      failed > 0 ? fmt::format(", {} with judge failures", failed) : "")));
      continue;
    }
    checks.push_back(
        {fmt::format("{} {} {:g}", key, op, bound), lower ? st->mean <= bound : st->mean >= bound,
         fmt::format("{} {} {:.4f}: mean {:.4f}, 95% interval {} over {} rows{}", key, op, bound,
                     st->mean, analysis::IntervalText(*st), column.values.size(),
                     failed > 0 ? fmt::format(" ({} failed)", failed) : std::string())});
  }
  if (failed_rows > 0) {
    checks.push_back(
        {fmt::format("judge failures <= {}", o.max_failed_rows), failed_rows <= o.max_failed_rows,
         fmt::format("judge failures <= {}: {} rows have judge failures (rerun them with tala eval "
                     "--resume, or allow them with --max-failed-rows)",
                     o.max_failed_rows, failed_rows)});
  }
  if (o.max_drop.empty()) return checks;
  TALA_ASSIGN_OR_RETURN(io::ResultsFile base, io::ReadResults(o.baseline));
  TALA_ASSIGN_OR_RETURN(io::Pairing pairing, io::PairRows(base, run, o.pair_by_order));
  for (const auto& [gated, allowed] : o.max_drop) {
    TALA_ASSIGN_OR_RETURN(std::string key, KeyInRun(run, gated));
    if (!KeyInRun(base, key)) return NotFound("the baseline has no metric " + key);
    io::PairedScores pairs = io::PairedColumn(base, run, pairing, key);
    if (pairs.ids.empty()) {
      checks.push_back(NothingScored(
          fmt::format("{} drop <= {:g}", key, allowed),
          fmt::format("no row scored in both runs (the baseline scored {}, this run {})",
                      io::ColumnOf(base, key).values.size(),
                      io::ColumnOf(run, key).values.size())));
      continue;
    }
    auto r = analysis::ComparePaired(pairs.base, pairs.candidate);
    // A drop is a fall, or a rise for lower-is-better metrics. The gate fails only when the whole
    // interval of the drop lies beyond the allowed drop.
    const bool lower = LowerIsBetter(run, key);
    const double drop_low = lower ? r.ci_low : -r.ci_high;
    const double drop_high = lower ? r.ci_high : -r.ci_low;
    checks.push_back(
        {fmt::format("{} drop <= {:g}", key, allowed), drop_low <= allowed,
         fmt::format("{} drop <= {:.4f}: drop {:.4f}, 95% interval [{:.4f}, {:.4f}] over {} "
                     "paired rows{}",
                     key, allowed, lower ? r.mean_difference : -r.mean_difference, drop_low,
                     drop_high, r.n, pairing.note.empty() ? "" : " (" + pairing.note + ")")});
  }
  return checks;
}

}  // namespace tala
