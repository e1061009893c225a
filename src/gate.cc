#include "tala/gate.h"

#include <fmt/format.h>

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
  for (const auto& [key, bound] : o.min) {
    auto st = analysis::Summarise(io::ColumnOf(run, key).values);
    if (!st) return NotFound(key + " has no scored row in " + o.results);
    const bool lower = LowerIsBetter(run, key);
    const char* op = lower ? "<=" : ">=";
    checks.push_back({fmt::format("{} {} {:g}", key, op, bound),
                      lower ? st->mean <= bound : st->mean >= bound,
                      fmt::format("{} {} {:.4f}: mean {:.4f}, 95% interval [{:.4f}, {:.4f}]", key,
                                  op, bound, st->mean, st->ci_low, st->ci_high)});
  }
  if (o.max_drop.empty()) return checks;
  TALA_ASSIGN_OR_RETURN(io::ResultsFile base, io::ReadResults(o.baseline));
  for (const auto& [key, allowed] : o.max_drop) {
    io::PairedScores pairs = io::PairById(base, run, key);
    if (pairs.ids.empty()) return NotFound(key + " has no row scored in both runs (paired by id)");
    auto r = analysis::ComparePaired(pairs.base, pairs.candidate);
    // A drop is a fall, or a rise for lower-is-better metrics. The gate fails only when the whole
    // interval of the drop lies beyond the allowed drop.
    const bool lower = LowerIsBetter(run, key);
    const double drop_low = lower ? r.ci_low : -r.ci_high;
    const double drop_high = lower ? r.ci_high : -r.ci_low;
    checks.push_back(
        {fmt::format("{} drop <= {:g}", key, allowed), drop_low <= allowed,
         fmt::format("{} drop <= {:.4f}: drop {:.4f}, 95% interval [{:.4f}, {:.4f}] over {} "
                     "paired rows",
                     key, allowed, lower ? r.mean_difference : -r.mean_difference, drop_low,
                     drop_high, r.n)});
  }
  return checks;
}

}  // namespace tala
