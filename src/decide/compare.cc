#include "tala/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "analysis/paired_comparison.h"
#include "io/readers/results_reader.h"
#include "metrics/registry.h"

namespace tala {

namespace {
// What differs between the two runs' metric and prompt versions (empty: nothing, or a file
// without a manifest, which predates them).
std::string VersionMismatch(const io::ResultsFile& base, const io::ResultsFile& candidate) {
  if (!base.manifest || !candidate.manifest) return "";
  std::string out;
  auto check = [&](const char* what, const std::map<std::string, std::string>& a,
                   const std::map<std::string, std::string>& b) {
    for (const auto& [name, version] : a) {
      auto it = b.find(name);
      if (it != b.end() && it->second != version) {
        out += fmt::format("{}{} {} {} vs {}", out.empty() ? "" : ", ", what, name, version,
                           it->second);
      }
    }
  };
  check("metric", base.manifest->metrics, candidate.manifest->metrics);
  check("prompt", base.manifest->prompts, candidate.manifest->prompts);
  // A judge profile (tala align) moves the thresholds the rows are diagnosed with.
  auto setting = [](const io::RunManifest& m, const char* key, const char* absent) {
    for (const auto& [name, value] : m.settings) {
      if (name == key) return value;
    }
    return std::string(absent);
  };
  auto differs = [&](const char* key, const char* absent, const char* what) {
    const std::string a = setting(*base.manifest, key, absent);
    const std::string b = setting(*candidate.manifest, key, absent);
    if (a != b) out += fmt::format("{}{} {} vs {}", out.empty() ? "" : ", ", what, a, b);
  };
  differs("judge_profile", "none", "judge profile");
  // A layout other than the separate calls asks the model in other words (its own prompt).
  differs("layout", "separate", "layout");
  // The offline judge with its sentence encoder and without it read relevance differently.
  const std::string& a = base.manifest->embeddings;
  const std::string& b = candidate.manifest->embeddings;
  if (!a.empty() && !b.empty() && a != b) {
    out += fmt::format("{}embeddings {} vs {}", out.empty() ? "" : ", ", a, b);
  }
  return out;
}

MetricComparison CompareMetric(const std::string& key, Direction direction,
                               const io::PairedScores& pairs, int top) {
  MetricComparison mc;
  mc.metric = key;
  mc.direction = direction;
  auto r = analysis::ComparePaired(pairs.base, pairs.candidate,
                                   {.lower_is_better = mc.direction == Direction::kLowerIsBetter});
  mc.pairs = r.n;
  mc.base_mean = r.base_mean;
  mc.candidate_mean = r.candidate_mean;
  mc.difference = r.mean_difference;
  mc.ci_low = r.ci_low;
  mc.ci_high = r.ci_high;
  mc.p_value = r.p_value;
  mc.verdict = analysis::VerdictName(r.verdict);
  std::vector<RowMove> moves;
  for (size_t i = 0; i < pairs.ids.size(); ++i) {
    moves.push_back({pairs.ids[i], pairs.candidate[i] - pairs.base[i]});
  }
  // Ties by id, so the listing does not depend on the input order.
  std::sort(moves.begin(), moves.end(), [](const RowMove& a, const RowMove& b) {
    return a.change != b.change ? a.change < b.change : a.id < b.id;
  });
  for (auto it = moves.rbegin(); it != moves.rend() && it->change > 0; ++it) {
    if (static_cast<int>(mc.gains.size()) >= top) break;
    mc.gains.push_back(*it);
  }
  for (auto it = moves.begin(); it != moves.end() && it->change < 0; ++it) {
    if (static_cast<int>(mc.losses.size()) >= top) break;
    mc.losses.push_back(*it);
  }
  return mc;
}
}  // namespace

Result<Comparison> Compare(const CompareOptions& o) {
  TALA_ASSIGN_OR_RETURN(io::ResultsFile base, io::ReadResults(o.base));
  TALA_ASSIGN_OR_RETURN(io::ResultsFile candidate, io::ReadResults(o.candidate));
  Comparison out;
  out.version_warning = VersionMismatch(base, candidate);
  if (!out.version_warning.empty() && !o.allow_version_mismatch) {
    return InvalidArgument("the runs were made with different versions: " + out.version_warning +
                           "; their numbers are not comparable (pass --allow-version-mismatch to "
                           "compare anyway)");
  }
  // The provider can change the model behind a name: a warning, not a refusal (the numbers may
  // still be worth comparing, knowing the judge moved).
  for (auto [what, a, b] :
       {std::tuple{"model versions", &base.models_reported, &candidate.models_reported},
        {"system fingerprints", &base.system_fingerprints, &candidate.system_fingerprints}}) {
    if (!a->empty() && !b->empty() && *a != *b) {
      auto join = [](const std::set<std::string>& s) {
        std::string t;
        for (const std::string& x : s) t += (t.empty() ? "" : ", ") + x;
        return t;
      };
      out.judge_warning +=
          fmt::format("{}the judge's provider reported different {}: {} vs {}",
                      out.judge_warning.empty() ? "" : "; ", what, join(*a), join(*b));
    }
  }
  TALA_ASSIGN_OR_RETURN(io::Pairing pairing, io::PairRows(base, candidate, o.pair_by_order));
  out.unmatched_rows = pairing.unmatched;
  out.pairing_note = pairing.note;
  for (const std::string& key : candidate.metric_keys) {
    io::PairedScores pairs = io::PairedColumn(base, candidate, pairing, key);
    if (!pairs.ids.empty()) {
      out.metrics.push_back(CompareMetric(key, io::DirectionIn(candidate, key), pairs, o.top));
    }
  }
  if (out.metrics.empty()) {
    return NotFound(
        "no metric is scored on rows common to both files (rows pair by id, or by "
        "question when the data has no ids)");
  }
  return out;
}

namespace {
// One line before the table: per half of the pipeline, which metrics got better or worse.
std::string ComparisonVerdict(const Comparison& c) {
  std::string out;
  for (const auto& [stage, name] : metrics::PipelineStages()) {
    std::string better, worse;
    bool any = false;
    for (const MetricComparison& m : c.metrics) {
      if (metrics::PipelineStage(m.metric) != stage) continue;
      any = true;
      std::string item = fmt::format("{} {:+.3f}", m.metric, m.difference);
      if (m.verdict == "better") better += (better.empty() ? "" : ", ") + item;
      if (m.verdict == "worse") worse += (worse.empty() ? "" : ", ") + item;
    }
    if (!any) continue;
    std::string said = !better.empty() && !worse.empty()
                           ? "better on " + better + " but worse on " + worse
                       : !better.empty() ? "better (" + better + ")"
                       : !worse.empty()  ? "worse (" + worse + ")"
                                         : "no detectable change";
    out += (out.empty() ? "verdict: " : "; ") + std::string(name) + " " + said;
  }
  return out.empty() ? "" : out + "\n\n";
}
}  // namespace

std::string FormatComparison(const Comparison& c) {
  std::string s = ComparisonVerdict(c);
  s += fmt::format("{:<30} {:>6} {:>8} {:>8} {:>9} {:>21} {:>8}  {}\n", "metric", "pairs", "base",
                   "cand", "diff", "95% interval", "p", "verdict");
  // The table in pipeline order, as the verdict reads.
  std::vector<const MetricComparison*> ordered;
  for (const auto& [stage, name] : metrics::PipelineStages()) {
    for (const MetricComparison& m : c.metrics) {
      if (metrics::PipelineStage(m.metric) == stage) ordered.push_back(&m);
    }
  }
  for (const MetricComparison* mp : ordered) {
    const MetricComparison& m = *mp;
    s += fmt::format(
        "{:<30} {:>6} {:>8.4f} {:>8.4f} {:>+9.4f} [{:>+8.4f}, {:>+8.4f}] {:>8.4f}  {}\n", m.metric,
        m.pairs, m.base_mean, m.candidate_mean, m.difference, m.ci_low, m.ci_high, m.p_value,
        m.verdict);
  }
  if (!c.pairing_note.empty()) s += "\n" + c.pairing_note + "\n";
  if (c.unmatched_rows > 0) {
    s += fmt::format("\n{} candidate rows have no partner row in the base\n", c.unmatched_rows);
  }
  for (const MetricComparison& m : c.metrics) {
    if (m.gains.empty() && m.losses.empty()) continue;
    s += fmt::format("\n{} moved most:", m.metric);
    for (const auto* list : {&m.gains, &m.losses}) {
      for (const RowMove& r : *list) s += fmt::format(" {} ({:+.3f})", r.id, r.change);
    }
  }
  return s + "\n";
}

std::string ComparisonJson(const Comparison& c) {
  std::string s = fmt::format("{{\"unmatched_rows\":{},\"metrics\":[", c.unmatched_rows);
  for (size_t i = 0; i < c.metrics.size(); ++i) {
    const MetricComparison& m = c.metrics[i];
    s += fmt::format(
        "{}{{\"metric\":\"{}\",\"pairs\":{},\"base_mean\":{:.6g},\"candidate_mean\":{:.6g},"
        "\"difference\":{:.6g},\"ci95\":[{:.6g},{:.6g}],\"p_value\":{:.6g},\"verdict\":\"{}\"}}",
        i ? "," : "", m.metric, m.pairs, m.base_mean, m.candidate_mean, m.difference, m.ci_low,
        m.ci_high, m.p_value, m.verdict);
  }
  return s + "]}\n";
}

}  // namespace tala
