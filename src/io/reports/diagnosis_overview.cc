#include "io/reports/diagnosis_overview.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/diagnosis.h"

namespace tala::io {

int64_t DiagnosisOverview::Count(const std::string& diagnosis) const {
  auto it = counts.find(diagnosis);
  return it == counts.end() ? 0 : it->second;
}

int64_t DiagnosisOverview::FailingAt(const std::string& at) const {
  int64_t n = 0;
  for (const auto& [name, rows] : counts) n += analysis::DiagnosisStage(name) == at ? rows : 0;
  return n;
}

DiagnosisOverview OverviewOf(const ResultsFile& r) {
  DiagnosisOverview o;
  for (const ResultRow& row : r.rows) {
    if (!row.diagnosis.empty()) ++o.counts[row.diagnosis];
  }
  for (analysis::Diagnosis d : analysis::AllDiagnoses()) {
    const std::string name(analysis::DiagnosisName(d));
    const int64_t n = o.Count(name);
    if (d != analysis::Diagnosis::kNotDiagnosed) o.diagnosed += n;
    // In pipeline order, so a tie goes to the earlier stage (fix retrieval first).
    if (!analysis::DecidingMetric(d).empty() && n > o.principal_rows) {
      o.principal_rows = n;
      o.principal = name;
      o.stage = std::string(analysis::DiagnosisStage(d));
      o.metric = analysis::DecidingMetric(d);
    }
  }
  if (o.principal.empty()) return o;
  for (const ResultRow& row : r.rows) {
    if (row.diagnosis != o.principal) continue;
    auto it = row.scores.find(o.metric);
    o.worst.emplace_back(it != row.scores.end() && it->second ? *it->second : 0.0, &row);
  }
  std::stable_sort(o.worst.begin(), o.worst.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (o.worst.size() > 5) o.worst.resize(5);
  return o;
}

std::string PipelineText(const DiagnosisOverview& o) {
  if (o.diagnosed == 0) return "";
  auto stage = [&](const char* name) {
    const int64_t n = o.FailingAt(name);
    return fmt::format("{}: {} of {} rows fail ({:.0f}%)", name, n, o.diagnosed,
                       100.0 * n / o.diagnosed);
  };
  return fmt::format("question → {} → {} → answer: healthy in {} of {} rows", stage("retriever"),
                     stage("generator"), o.Count("healthy"), o.diagnosed);
}

std::string VerdictText(const DiagnosisOverview& o) {
  if (o.diagnosed == 0) return "";
  if (o.principal.empty()) return "no stage fails: every diagnosed row is healthy";
  return fmt::format("the {} is the principal failure: {} in {} of {} rows ({:.0f}%)", o.stage,
                     o.principal, o.principal_rows, o.diagnosed,
                     100.0 * o.principal_rows / o.diagnosed);
}

}  // namespace tala::io
