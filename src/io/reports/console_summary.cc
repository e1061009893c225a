#include "io/reports/console_summary.h"

#include <fmt/format.h>

#include "io/writers/json_text.h"

namespace tala::io {

namespace {
const char* DirectionWord(Direction d) {
  return d == Direction::kHigherIsBetter ? "higher" : "lower";
}
}  // namespace

std::string FormatSummaryTable(const RunSummary& s) {
  size_t width = 6;
  for (const MetricSummary& m : s.metrics) width = std::max(width, m.key.size());
  std::string out = fmt::format("judge: {}   rows: {} scored", s.judge, s.rows_scored);
  if (s.rows_skipped > 0) out += fmt::format(", {} skipped (invalid)", s.rows_skipped);
  if (s.rows_failed > 0) out += fmt::format(", {} with judge failures", s.rows_failed);
  out += "\n\n";
  out += fmt::format("{:<{}}  {:>7}  {:>17}  {:>7}  {:>9}  {:>6}  {}\n", "metric", width, "mean",
                     "95% interval", "scored", "undefined", "failed", "better");
  out += std::string(width + 67, '-') + "\n";
  for (const MetricSummary& m : s.metrics) {
    std::string mean = m.scored > 0 ? fmt::format("{:.4f}", m.mean()) : "-";
    std::string ci = m.scored > 0 ? fmt::format("[{:.4f}, {:.4f}]", m.ci_low, m.ci_high) : "-";
    out += fmt::format("{:<{}}  {:>7}  {:>17}  {:>7}  {:>9}  {:>6}  {}\n", m.key, width, mean, ci,
                       m.scored, m.undefined, m.failed, DirectionWord(m.direction));
  }
  for (const std::string& note : s.notes) out += "note: " + note + "\n";
  if (!s.diagnoses.empty()) {
    out += "\ndiagnosis (rows):";
    for (const auto& [name, count] : s.diagnoses) out += fmt::format("  {} {}", name, count);
    out += "\n";
  }
  if (!s.principal_failure.empty()) {
    out += fmt::format("principal failure: {}; worst rows:", s.principal_failure);
    for (const DiagnosedRow& r : s.worst_rows) out += fmt::format(" {} ({:.2f})", r.id, r.score);
    out += "\n";
  }
  return out;
}

std::string FormatSummaryJson(const RunSummary& s) {
  std::string out = "{\"judge\":";
  AppendJsonString(out, s.judge);
  out += ",\"results\":";
  AppendJsonString(out, s.results_path);
  out += fmt::format(",\"rows_read\":{},\"rows_scored\":{},\"rows_skipped\":{},\"rows_failed\":{}",
                     s.rows_read, s.rows_scored, s.rows_skipped, s.rows_failed);
  out += ",\"metrics\":[";
  for (size_t i = 0; i < s.metrics.size(); ++i) {
    const MetricSummary& m = s.metrics[i];
    if (i > 0) out += ',';
    out += "{\"metric\":";
    AppendJsonString(out, m.key);
    out += ",\"mean\":";
    if (m.scored > 0) {
      AppendJsonNumber(out, m.mean());
    } else {
      out += "null";
    }
    if (m.scored > 0) {
      out += fmt::format(",\"median\":{},\"stddev\":{},\"ci95\":[{},{}],\"interval\":\"{}\"",
                         m.median, m.stddev, m.ci_low, m.ci_high, m.interval);
    }
    out += fmt::format(",\"scored\":{},\"undefined\":{},\"failed\":{},\"better\":\"{}\"}}",
                       m.scored, m.undefined, m.failed, DirectionWord(m.direction));
  }
  out += "],\"diagnoses\":{";
  for (size_t i = 0; i < s.diagnoses.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, s.diagnoses[i].first);
    out += fmt::format(":{}", s.diagnoses[i].second);
  }
  out += "},\"principal_failure\":";
  if (s.principal_failure.empty()) {
    out += "null";
  } else {
    AppendJsonString(out, s.principal_failure);
  }
  out += "}";
  return out;
}

}  // namespace tala::io
