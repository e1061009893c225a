#include <fmt/format.h>

#include <map>

#include "analysis/judge_agreement.h"
#include "analysis/paired_comparison.h"
#include "io/readers/results_reader.h"
#include "tala/calibrate.h"

namespace tala {

Result<std::vector<JudgeDrift>> CompareJudges(const JudgeDriftOptions& o) {
  TALA_ASSIGN_OR_RETURN(io::ResultsFile a, io::ReadResults(o.judge_a));
  TALA_ASSIGN_OR_RETURN(io::ResultsFile b, io::ReadResults(o.judge_b));
  std::vector<std::string> keys;
  if (!o.metric.empty()) {
    keys.push_back(o.metric);
  } else {
    keys = a.metric_keys;
  }
  std::vector<JudgeDrift> out;
  for (const std::string& key : keys) {
    io::PairedScores pairs = io::PairById(a, b, key);
    if (pairs.ids.empty()) continue;
    JudgeDrift d;
    d.metric = key;
    d.pairs = static_cast<long>(pairs.ids.size());
    std::vector<analysis::LabelledScore> rows;
    for (size_t i = 0; i < pairs.ids.size(); ++i) {
      bool pos_a = pairs.base[i] >= o.threshold, pos_b = pairs.candidate[i] >= o.threshold;
      rows.push_back({pos_a, pairs.candidate[i], ""});
      if (pos_a != pos_b) d.flipped.push_back({pairs.ids[i], pairs.base[i], pairs.candidate[i]});
    }
    analysis::Confusion c = analysis::Confuse(rows, o.threshold);
    d.agreement = analysis::RawAgreement(c);
    d.kappa = analysis::CohensKappa(c);
    auto r = analysis::ComparePaired(pairs.base, pairs.candidate);
    d.mean_a = r.base_mean;
    d.mean_b = r.candidate_mean;
    d.shift = r.mean_difference;
    d.shift_low = r.ci_low;
    d.shift_high = r.ci_high;
    out.push_back(std::move(d));
  }
  if (out.empty()) {
    return NotFound("no metric is scored on rows common to both files (pairs by id)");
  }
  return out;
}

std::string FormatJudgeDrift(const std::vector<JudgeDrift>& drifts, double threshold) {
  std::string s;
  for (const JudgeDrift& d : drifts) {
    s += fmt::format(
        "{}: {} rows; agreement at {:g}: {:.4f}, kappa {}; mean {:.4f} -> {:.4f}, shift {:+.4f} "
        "(95% interval [{:+.4f}, {:+.4f}])\n",
        d.metric, d.pairs, threshold, d.agreement,
        d.kappa ? fmt::format("{:.4f}", *d.kappa) : std::string("null"), d.mean_a, d.mean_b,
        d.shift, d.shift_low, d.shift_high);
    if (d.flipped.empty()) continue;
    s += fmt::format("  {} rows flipped:", d.flipped.size());
    for (const FlippedRow& f : d.flipped) {
      s += fmt::format(" {} ({:.3f} -> {:.3f})", f.id, f.a, f.b);
    }
    s += "\n";
  }
  return s;
}

}  // namespace tala
