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
  out += fmt::format("{:<{}}  {:>7}  {:>7}  {:>9}  {:>6}  {}\n", "metric", width, "mean", "scored",
                     "undefined", "failed", "better");
  out += std::string(width + 48, '-') + "\n";
  for (const MetricSummary& m : s.metrics) {
    std::string mean = m.scored > 0 ? fmt::format("{:.4f}", m.mean()) : "-";
    out += fmt::format("{:<{}}  {:>7}  {:>7}  {:>9}  {:>6}  {}\n", m.key, width, mean, m.scored,
                       m.undefined, m.failed, DirectionWord(m.direction));
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
    out += fmt::format(",\"scored\":{},\"undefined\":{},\"failed\":{},\"better\":\"{}\"}}",
                       m.scored, m.undefined, m.failed, DirectionWord(m.direction));
  }
  out += "]}";
  return out;
}

}  // namespace tala::io
