// tala compare BASE CANDIDATE: paired comparison of two results files, row by row (by id).

#include <algorithm>
#include <cstdio>
#include <map>

#include "analysis/paired_comparison.h"
#include "cli/commands.h"
#include "io/readers/results_reader.h"
#include "io/writers/json_text.h"
#include "metrics/registry.h"

namespace tala::cli {

namespace {
struct CompareFlags {
  std::string base, candidate;
  int top = 3;
  bool json = false;
  bool allow_version_mismatch = false;
};

bool LowerIsBetter(const std::string& key) {
  return metrics::DirectionOfKey(key) == Direction::kLowerIsBetter;
}

struct MetricComparison {
  std::string key;
  analysis::PairedResult result;
  std::vector<std::pair<double, std::string>> moves;  // (candidate − base, id), sorted
};

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
        out += (out.empty() ? "" : ", ") + std::string(what) + " " + name + " " + version + " vs " +
               it->second;
      }
    }
  };
  check("metric", base.manifest->metrics, candidate.manifest->metrics);
  check("prompt", base.manifest->prompts, candidate.manifest->prompts);
  return out;
}

int RunCompare(const CompareFlags& f) {
  auto base = io::ReadResults(f.base);
  auto candidate = io::ReadResults(f.candidate);
  for (const auto* r : {&base, &candidate}) {
    if (!*r) {
      std::fprintf(stderr, "tala compare: %s\n", r->error().ToString().c_str());
      return 2;
    }
  }
  if (std::string why = VersionMismatch(*base, *candidate); !why.empty()) {
    if (!f.allow_version_mismatch) {
      std::fprintf(stderr,
                   "tala compare: the runs were made with different versions: %s; their numbers "
                   "are not comparable (pass --allow-version-mismatch to compare anyway)\n",
                   why.c_str());
      return 2;
    }
    std::fprintf(stderr, "tala compare: warning: different versions: %s\n", why.c_str());
  }
  std::map<std::string, const io::ResultRow*> by_id;
  for (const io::ResultRow& row : base->rows) by_id[row.id] = &row;
  long unmatched = 0;
  for (const io::ResultRow& row : candidate->rows) unmatched += by_id.count(row.id) ? 0 : 1;
  std::vector<MetricComparison> out;
  for (const std::string& key : candidate->metric_keys) {
    io::PairedScores pairs = io::PairById(*base, *candidate, key);
    MetricComparison mc{key, {}, {}};
    for (size_t i = 0; i < pairs.ids.size(); ++i) {
      mc.moves.emplace_back(pairs.candidate[i] - pairs.base[i], pairs.ids[i]);
    }
    if (pairs.ids.empty()) continue;
    mc.result = analysis::ComparePaired(pairs.base, pairs.candidate,
                                        {.lower_is_better = LowerIsBetter(key)});
    std::sort(mc.moves.begin(), mc.moves.end());
    out.push_back(std::move(mc));
  }
  if (out.empty()) {
    std::fprintf(stderr,
                 "tala compare: no metric is scored on rows common to both files (pairs "
                 "by id)\n");
    return 2;
  }
  if (f.json) {
    std::string s = "{\"unmatched_rows\":" + std::to_string(unmatched) + ",\"metrics\":[";
    for (size_t i = 0; i < out.size(); ++i) {
      const auto& r = out[i].result;
      char buf[400];
      std::snprintf(buf, sizeof buf,
                    "%s{\"metric\":\"%s\",\"pairs\":%ld,\"base_mean\":%.6g,\"candidate_mean\":%.6g,"
                    "\"difference\":%.6g,\"ci95\":[%.6g,%.6g],\"p_value\":%.6g,\"verdict\":\"%s\"}",
                    i ? "," : "", out[i].key.c_str(), r.n, r.base_mean, r.candidate_mean,
                    r.mean_difference, r.ci_low, r.ci_high, r.p_value,
                    analysis::VerdictName(r.verdict));
      s += buf;
    }
    std::printf("%s]}\n", s.c_str());
    return 0;
  }
  std::printf("%-30s %6s %8s %8s %9s %21s %8s  %s\n", "metric", "pairs", "base", "cand", "diff",
              "95% interval", "p", "verdict");
  for (const MetricComparison& mc : out) {
    const auto& r = mc.result;
    std::printf("%-30s %6ld %8.4f %8.4f %+9.4f [%+8.4f, %+8.4f] %8.4f  %s\n", mc.key.c_str(), r.n,
                r.base_mean, r.candidate_mean, r.mean_difference, r.ci_low, r.ci_high, r.p_value,
                analysis::VerdictName(r.verdict));
  }
  if (unmatched > 0)
    std::printf("\n%ld candidate rows have no row of the same id in the base\n", unmatched);
  for (const MetricComparison& mc : out) {
    if (mc.moves.front().first == 0 && mc.moves.back().first == 0) continue;
    std::printf("\n%s moved most:", mc.key.c_str());
    int shown = 0;
    for (auto it = mc.moves.rbegin(); it != mc.moves.rend() && shown < f.top && it->first > 0;
         ++it, ++shown) {
      std::printf(" %s (%+.3f)", it->second.c_str(), it->first);
    }
    shown = 0;
    for (auto it = mc.moves.begin(); it != mc.moves.end() && shown < f.top && it->first < 0;
         ++it, ++shown) {
      std::printf(" %s (%+.3f)", it->second.c_str(), it->first);
    }
  }
  std::printf("\n");
  return 0;
}
}  // namespace

void AddCompareCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<CompareFlags>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare two results files row by row (paired by id): per metric the mean "
      "difference, a paired bootstrap 95% interval, a sign-flip permutation p-value, "
      "a verdict (better / worse / no detectable change, respecting each metric's "
      "direction), and the rows that moved most.");
  cmd->add_option("BASE", f->base, "results file of the baseline run")->required();
  cmd->add_option("CANDIDATE", f->candidate, "results file of the candidate run")->required();
  cmd->add_option("--top", f->top, "rows to list per direction")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  cmd->add_flag("--json", f->json, "print the comparison as JSON");
  cmd->add_flag("--allow-version-mismatch", f->allow_version_mismatch,
                "compare even when the runs' metric or prompt versions differ (their manifests "
                "say so)");
  cmd->callback([f, exit_code] { *exit_code = RunCompare(*f); });
}

}  // namespace tala::cli
