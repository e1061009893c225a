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
  for (const auto& [key, bound] : o.min) {
    io::MetricColumn column = io::ColumnOf(run, key);
    auto st = analysis::Summarise(column.values);
    if (!st) {
      return NotFound(key + " has no scored row in " + o.results +
                      (failed_rows > 0
                           ? " (" + std::to_string(failed_rows) + " rows have judge failures)"
                           : std::string()));
    }
    int64_t failed = 0;
    for (const io::ResultRow& row : run.rows) failed += row.failed_on(key) ? 1 : 0;
    const bool lower = LowerIsBetter(run, key);
    const char* op = lower ? "<=" : ">=";
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
  for (const auto& [key, allowed] : o.max_drop) {
    io::PairedScores pairs = io::PairedColumn(base, run, pairing, key);
    if (pairs.ids.empty()) return NotFound(key + " has no row scored in both runs");
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
