#include "io/reports/diagnosis_overview.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/diagnosis.h"
#include "analysis/intervals.h"

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
  std::map<analysis::Diagnosis, int64_t> rows;
  for (analysis::Diagnosis d : analysis::AllDiagnoses()) {
    rows[d] = o.Count(std::string(analysis::DiagnosisName(d)));
    if (d != analysis::Diagnosis::kNotDiagnosed) o.diagnosed += rows[d];
  }
  const analysis::Diagnosis principal = analysis::PrincipalFailure(rows);
  if (principal == analysis::Diagnosis::kHealthy) return o;
  o.principal = std::string(analysis::DiagnosisName(principal));
  o.principal_rows = rows[principal];
  o.stage = std::string(analysis::DiagnosisStage(principal));
  o.metric = analysis::DecidingMetric(principal);
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

std::string HalfShareText(int64_t failing, int64_t principal_rows, int64_t diagnosed) {
  if (diagnosed <= 0 || failing <= principal_rows) return "";
  auto [low, high] =
      analysis::WilsonInterval(static_cast<double>(failing), static_cast<double>(diagnosed), 0.95);
  return fmt::format(" of the {} it fails ({:.0f}%, 95% [{:.0f}%, {:.0f}%])", failing,
                     100.0 * failing / diagnosed, 100 * low, 100 * high);
}

std::string UnknownText(int64_t unknown, int64_t diagnosed, bool alone) {
  if (unknown <= 0) return "";
  const char* why =
      "answers their chunks do not support, and no reference to tell a retriever miss from the "
      "generator: add references, score context_relevance, or run tala diagnose against the app";
  if (alone) return fmt::format("cause unknown in {} of {} rows: {}", unknown, diagnosed, why);
  return fmt::format("; cause unknown in {} ({})", unknown, why);
}

std::string VerdictText(const DiagnosisOverview& o) {
  if (o.diagnosed == 0) return "";
  const int64_t unknown =
      o.Count(std::string(analysis::DiagnosisName(analysis::Diagnosis::kUnknown)));
  if (o.principal.empty()) {
    if (unknown > 0) return UnknownText(unknown, o.diagnosed, true);
    return "no stage fails: every diagnosed row is healthy";
  }
  return fmt::format("the {} is the principal failure: {} in {} of {} rows ({:.0f}%){}{}", o.stage,
                     o.principal, o.principal_rows, o.diagnosed,
                     100.0 * o.principal_rows / o.diagnosed,
                     HalfShareText(o.FailingAt(o.stage), o.principal_rows, o.diagnosed),
                     UnknownText(unknown, o.diagnosed, false));
}

}  // namespace tala::io
