#include "io/reports/console_summary.h"

#include <fmt/format.h>

#include <algorithm>

#include "io/writers/json_text.h"

namespace tala::io {

namespace {
const char* DirectionWord(Direction d) {
  return d == Direction::kHigherIsBetter ? "higher" : "lower";
}

std::string Cost(const CallTally& t) {
  return t.cost_usd ? fmt::format("${:.4f}", *t.cost_usd) : "unknown";
}

// Calls and tokens per prompt and per metric, with per-row averages beside the totals.
std::string AccountingTable(const RunAccounting& a) {
  const double rows = a.rows > 0 ? static_cast<double>(a.rows) : 1.0;
  // The name column fits the longest prompt or metric name ("rate_response_groundedness_a@1").
  size_t w = 26;
  for (const auto& [name, t] : a.by_prompt) w = std::max(w, name.size());
  for (const auto& [name, t] : a.by_metric) w = std::max(w, name.size() + 2);
  std::string out = fmt::format("{:<{}} {:>8} {:>10} {:>9} {:>12} {:>12} {:>10}\n",
                                a.estimated ? "estimated calls" : "model calls", w, "calls",
                                "cache hits", "calls/row", "prompt tok", "compl. tok", "cost");
  auto line = [&](const std::string& name, const CallTally& t) {
    out += fmt::format("{:<{}} {:>8} {:>10} {:>9.2f} {:>12} {:>12} {:>10}\n", name, w, t.calls,
                       t.cache_hits, static_cast<double>(t.calls + t.cache_hits) / rows,
                       t.prompt_tokens, t.completion_tokens, Cost(t));
  };
  for (const auto& [name, t] : a.by_prompt) line(name, t);
  line("total", a.total);
  if (!a.by_metric.empty()) {
    out += "per metric (shared calls split between the metrics that use them):\n";
    for (const auto& [name, t] : a.by_metric) {
      out += fmt::format("  {:<{}} {:>8.2f} calls/row {:>10.0f} prompt tok/row\n", name, w - 2,
                         static_cast<double>(t.calls + t.cache_hits) / rows,
                         static_cast<double>(t.prompt_tokens) / rows);
    }
  }
  if (!a.estimated) {
    out += fmt::format("requests {} (retries {}, repairs {}), failed calls {}\n", a.total.requests,
                       a.total.retries, a.total.repairs, a.total.failed);
  }
  return out;
}

void AppendTallyJson(std::string& out, const CallTally& t) {
  out += fmt::format(
      "{{\"calls\":{},\"cache_hits\":{},\"requests\":{},\"retries\":{},\"repairs\":{},"
      "\"failed\":{},\"prompt_tokens\":{},\"completion_tokens\":{},\"cost_usd\":",
      t.calls, t.cache_hits, t.requests, t.retries, t.repairs, t.failed, t.prompt_tokens,
      t.completion_tokens);
  if (t.cost_usd) {
    AppendJsonNumber(out, *t.cost_usd);
  } else {
    out += "null";
  }
  out += '}';
}
}  // namespace

std::string FormatEstimateTable(const RunSummary& s) {
  std::string out = fmt::format("dry run: judge {}, {} rows; nothing was called or written\n\n",
                                s.judge, s.accounting.rows);
  for (const std::string& note : s.notes) out += "note: " + note + "\n";
  if (s.accounting.rows == 0 && !s.notes.empty()) return out;
  out += AccountingTable(s.accounting);
  out +=
      "token counts are estimates (4 characters a token); the embeddings call's inputs depend "
      "on the generated questions, so its cache hits are not predicted\n";
  return out;
}

std::string FormatSummaryTable(const RunSummary& s) {
  size_t width = 6;
  for (const MetricSummary& m : s.metrics) width = std::max(width, m.key.size());
  // A row whose judge calls failed is finished but not scored: say so, and say why up front.
  std::string out =
      s.rows_failed > 0
          ? fmt::format("judge: {}   rows: {} finished: {} scored, {} with judge failures", s.judge,
                        s.rows_scored, s.rows_scored - s.rows_failed, s.rows_failed)
          : fmt::format("judge: {}   rows: {} scored", s.judge, s.rows_scored);
  if (s.rows_skipped > 0) out += fmt::format(", {} skipped (invalid)", s.rows_skipped);
  if (s.rows_resumed > 0) out += fmt::format(" ({} kept from the results file)", s.rows_resumed);
  out += "\n";
  if (!s.failure_reasons.empty()) {
    out += "judge failures, first distinct reasons (rows):\n";
    for (const auto& [reason, rows] : s.failure_reasons) {
      out += fmt::format("  {:>6}  {}\n", rows, reason);
    }
  }
  out += "\n";
  out += fmt::format("{:<{}}  {:>7}  {:>17}  {:>7}  {:>9}  {:>6}  {}\n", "metric", width, "mean",
                     "95% interval", "scored", "undefined", "failed", "better");
  out += std::string(width + 67, '-') + "\n";
  for (const MetricSummary& m : s.metrics) {
    std::string mean = m.scored > 0 ? fmt::format("{:.4f}", m.mean()) : "-";
    std::string ci = m.scored == 0          ? "-"
                     : m.interval == "none" ? "n too small"
                                            : fmt::format("[{:.4f}, {:.4f}]", m.ci_low, m.ci_high);
    out += fmt::format("{:<{}}  {:>7}  {:>17}  {:>7}  {:>9}  {:>6}  {}\n", m.key, width, mean, ci,
                       m.scored, m.undefined, m.failed, DirectionWord(m.direction));
  }
  for (const std::string& note : s.notes) out += "note: " + note + "\n";
  if (!s.estimates.empty()) {
    out += "\ncorrected by human labels (prediction-powered; tala estimate):\n";
    for (const LabelledEstimate& e : s.estimates) {
      out += fmt::format(
          "  {:<{}}  {:.4f}  [{:.4f}, {:.4f}]  judge {:.4f}, people {:.4f} on {} of "
          "{} rows\n",
          e.metric, width, e.ppi_mean, e.ppi_low, e.ppi_high, e.judge_mean, e.human_mean,
          e.n_labelled, e.n_total);
    }
  }
  bool repeated = false;
  for (const MetricSummary& m : s.metrics) repeated = repeated || m.repeat_means.size() > 1;
  if (repeated) {
    out += "\njudge noise over repeats (sd of the run means; suggested gate = mean -/+ 2 sd):\n";
    for (const MetricSummary& m : s.metrics) {
      if (m.repeat_means.size() < 2) continue;
      out += fmt::format("  {:<{}}  runs {}  sd {:.4f}  suggested gate {} {:.4f}\n", m.key, width,
                         m.repeat_means.size(), m.repeat_stddev,
                         m.direction == Direction::kHigherIsBetter ? ">=" : "<=", m.suggested_gate);
    }
  }
  if (s.accounting.used) out += "\n" + AccountingTable(s.accounting);
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
  out += ",\"failure_reasons\":[";
  for (size_t i = 0; i < s.failure_reasons.size(); ++i) {
    out += i > 0 ? ",{\"reason\":" : "{\"reason\":";
    AppendJsonString(out, s.failure_reasons[i].first);
    out += fmt::format(",\"rows\":{}}}", s.failure_reasons[i].second);
  }
  out += "],\"metrics\":[";
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
      out += fmt::format(
          ",\"median\":{},\"stddev\":{},\"ci95\":{},\"interval\":\"{}\"", m.median, m.stddev,
          m.interval == "none" ? std::string("null") : fmt::format("[{},{}]", m.ci_low, m.ci_high),
          m.interval);
    }
    if (m.repeat_means.size() > 1) {
      out += fmt::format(",\"repeats\":{},\"repeat_stddev\":{},\"suggested_gate\":{}",
                         m.repeat_means.size(), m.repeat_stddev, m.suggested_gate);
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
  if (s.accounting.used || s.accounting.estimated) {
    out += fmt::format(",\"accounting\":{{\"estimated\":{},\"rows\":{},\"total\":",
                       s.accounting.estimated ? "true" : "false", s.accounting.rows);
    AppendTallyJson(out, s.accounting.total);
    for (const auto* part : {&s.accounting.by_prompt, &s.accounting.by_metric}) {
      out += part == &s.accounting.by_prompt ? ",\"by_prompt\":{" : ",\"by_metric\":{";
      for (size_t i = 0; i < part->size(); ++i) {
        if (i > 0) out += ',';
        AppendJsonString(out, (*part)[i].first);
        out += ':';
        AppendTallyJson(out, (*part)[i].second);
      }
      out += '}';
    }
    out += '}';
  }
  out += "}";
  return out;
}

}  // namespace tala::io
