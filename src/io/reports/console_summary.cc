#include "io/reports/console_summary.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/diagnosis.h"
#include "analysis/intervals.h"
#include "io/reports/diagnosis_overview.h"
#include "io/reports/markup_escape.h"
#include "io/writers/json_text.h"
#include "metrics/registry.h"

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
  // What the provider's prompt cache served: billed at its cached price, so the cost above is
  // less than the tokens at the input price.
  if (a.total.cache_read_tokens + a.total.cache_write_tokens > 0) {
    out += fmt::format(
        "provider prompt cache: {} of {} prompt tokens read from it ({:.1f}%), {} written to it; "
        "the cost counts them at the cached prices\n",
        a.total.cache_read_tokens, a.total.prompt_tokens,
        a.total.prompt_tokens > 0 ? 100.0 * static_cast<double>(a.total.cache_read_tokens) /
                                        static_cast<double>(a.total.prompt_tokens)
                                  : 0.0,
        a.total.cache_write_tokens);
  }
  return out;
}

void AppendTallyJson(std::string& out, const CallTally& t) {
  out += fmt::format(
      "{{\"calls\":{},\"cache_hits\":{},\"requests\":{},\"retries\":{},\"repairs\":{},"
      "\"failed\":{},\"prompt_tokens\":{},\"completion_tokens\":{},\"cache_read_tokens\":{},"
      "\"cache_write_tokens\":{},\"cost_usd\":",
      t.calls, t.cache_hits, t.requests, t.retries, t.repairs, t.failed, t.prompt_tokens,
      t.completion_tokens, t.cache_read_tokens, t.cache_write_tokens);
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

namespace {
// `text` on one line, cut to `width` code points with an ellipsis.
std::string OneLine(const std::string& text, size_t width) {
  std::string out;
  size_t points = 0;
  bool space = false;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if ((c & 0xC0) != 0x80) {  // the first byte of a code point
      if (points + (space ? 1 : 0) >= width) return out + "…";
      if (space) {
        out += ' ';
        ++points;
        space = false;
      }
      ++points;
    }
    out += text[i];
  }
  return out;
}

constexpr size_t kMetricLines = 8;  // metric lines the summary shows; the rest are in the file

std::string MetricLine(const MetricSummary& m, size_t width) {
  std::string mean = m.scored > 0 ? fmt::format("{:.4f}", m.mean()) : "-";
  std::string ci = m.scored == 0          ? "-"
                   : m.interval == "none" ? "n too small"
                                          : fmt::format("[{:.4f}, {:.4f}]", m.ci_low, m.ci_high);
  return fmt::format("  {:<{}}  {:>7}  {:>17}  {:>7}  {:>9}  {:>6}  {}\n", m.key, width, mean, ci,
                     m.scored, m.undefined, m.failed, DirectionWord(m.direction));
}

// The metric table: the lines shown (core metrics first, then in run order, at most
// kMetricLines) under the heading of the half they judge, and how many were left out.
std::string MetricTable(const RunSummary& s, size_t* left_out) {
  std::vector<const MetricSummary*> shown;
  for (bool core : {true, false}) {
    for (const MetricSummary& m : s.metrics) {
      if (metrics::IsCoreMetric(m.key) == core && shown.size() < kMetricLines) shown.push_back(&m);
    }
  }
  *left_out = s.metrics.size() - shown.size();
  size_t width = 6;
  for (const MetricSummary* m : shown) width = std::max(width, m->key.size());
  std::string out =
      fmt::format("{:<{}}  {:>7}  {:>17}  {:>7}  {:>9}  {:>6}  {}\n", "metric", width + 2, "mean",
                  "95% interval", "scored", "undefined", "failed", "better");
  out += std::string(width + 69, '-') + "\n";
  // The terminal says what each half's metrics ask.
  auto described = [](const std::string& stage, const char* heading) -> std::string {
    if (stage == "retriever") return "retriever (did the right chunks come back, ranked first?)";
    if (stage == "generator") {
      return "generator (is the answer grounded in the chunks, and on the question?)";
    }
    if (stage == "reference") return "against the reference answer";
    return heading;
  };
  for (const auto& [stage, heading] : metrics::PipelineStages()) {
    std::string lines;
    for (const MetricSummary* m : shown) {
      if (metrics::PipelineStage(m->key) == stage) lines += MetricLine(*m, width);
    }
    if (!lines.empty()) out += described(stage, heading) + "\n" + lines;
  }
  return out;
}
}  // namespace

std::string DiagnosisVerdict(const RunSummary& s) {
  int64_t diagnosed = 0;
  for (const auto& [name, n] : s.diagnoses) diagnosed += name == "not diagnosed" ? 0 : n;
  if (diagnosed == 0) {
    if (s.diagnoses.empty()) return "";
    return "diagnosis: none: it reads context_recall, context_precision, faithfulness and "
           "response_relevancy, and no row has them scored";
  }
  int64_t unknown = 0;
  for (const auto& [name, n] : s.diagnoses) {
    unknown += name == analysis::DiagnosisName(analysis::Diagnosis::kUnknown) ? n : 0;
  }
  if (s.principal_failure.empty()) {
    if (unknown > 0) return "diagnosis: " + UnknownText(unknown, diagnosed, true);
    return fmt::format("diagnosis: healthy: no stage fails in any of the {} rows diagnosed",
                       diagnosed);
  }
  int64_t count = 0, half_rows = 0;
  const std::string half(analysis::DiagnosisStage(s.principal_failure));
  for (const auto& [name, n] : s.diagnoses) {
    count = name == s.principal_failure ? n : count;
    half_rows += analysis::DiagnosisStage(name) == half ? n : 0;
  }
  auto [low, high] =
      analysis::WilsonInterval(static_cast<double>(count), static_cast<double>(diagnosed), 0.95);
  std::string out = fmt::format(
      "diagnosis: the {} is the principal failure: {} in {} of {} rows ({:.0f}%, 95% [{:.0f}%, "
      "{:.0f}%])",
      half, s.principal_failure, count, diagnosed, 100.0 * count / diagnosed, 100 * low,
      100 * high);
  out += HalfShareText(half_rows, count, diagnosed);
  // The largest failure of the other half, so a reader sees both halves at once.
  std::string other;
  int64_t most = 0;
  for (const auto& [name, n] : s.diagnoses) {
    std::string h(analysis::DiagnosisStage(name));
    if (!h.empty() && h != half && n > most) {
      most = n;
      other = name;
    }
  }
  if (!other.empty()) out += fmt::format("; {} in {}", other, most);
  return out + UnknownText(unknown, diagnosed, false);
}

std::string FormatSummaryTable(const RunSummary& s, bool brief) {
  std::string out;
  if (std::string verdict = DiagnosisVerdict(s); !verdict.empty()) out += verdict + "\n";
  if (!brief && !s.worst_rows.empty()) {
    std::string metric;
    for (analysis::Diagnosis d : analysis::AllDiagnoses()) {
      if (analysis::DiagnosisName(d) == s.principal_failure) metric = analysis::DecidingMetric(d);
    }
    out += fmt::format("worst rows ({}):\n", metric);
    size_t id_width = 2;
    for (const DiagnosedRow& r : s.worst_rows) id_width = std::max(id_width, r.id.size());
    for (const DiagnosedRow& r : s.worst_rows) {
      out += fmt::format("  {:<{}}  {:.2f}", r.id, id_width, r.score);
      if (!r.question.empty()) out += "  " + OneLine(r.question, 60);
      out += "\n";
      if (!r.reason.empty())
        out += fmt::format("  {:<{}}        {}\n", "", id_width, OneLine(r.reason, 90));
    }
  }
  if (!brief && !s.diagnoses.empty()) {
    out += "rows by diagnosis:";
    for (const auto& [name, count] : s.diagnoses) out += fmt::format("  {} {}", name, count);
    out += "\n";
  }
  if (!brief) {
    if (!out.empty()) out += "\n";
    // A row whose judge calls failed is finished but not scored: say so, and say why up front.
    out += s.rows_failed > 0
               ? fmt::format("judge: {}   rows: {} finished: {} scored, {} with judge failures",
                             s.judge, s.rows_scored, s.rows_scored - s.rows_failed, s.rows_failed)
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
  }
  size_t left_out = 0;
  out += MetricTable(s, &left_out);
  if (left_out > 0) {
    const bool file = !s.results_path.empty() && s.results_path != "-";
    out += fmt::format("+ {} more metric{} in the results{} (all of them: {})\n", left_out,
                       left_out == 1 ? "" : "s", file ? " file " + s.results_path : "",
                       file ? "tala report " + s.results_path + " --markdown -" : "--json");
  }
  if (brief) return out;
  size_t width = 6;
  for (const MetricSummary& m : s.metrics) width = std::max(width, m.key.size());
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
  if (!s.notes.empty()) out += "\n";
  for (const std::string& note : s.notes) out += "note: " + note + "\n";
  return out;
}

std::string FormatSummaryHtml(const RunSummary& s) {
  std::string out = "<div class=\"tala-summary\">";
  if (std::string verdict = DiagnosisVerdict(s); !verdict.empty()) {
    out += "<p><b>" + EscapeMarkup(verdict) + "</b></p>";
  }
  if (!s.worst_rows.empty()) {
    out += "<ol>";
    for (const DiagnosedRow& r : s.worst_rows) {
      out += fmt::format("<li><code>{}</code> {:.2f} {}<br><small>{}</small></li>",
                         EscapeMarkup(r.id), r.score, EscapeMarkup(OneLine(r.question, 80)),
                         EscapeMarkup(OneLine(r.reason, 120)));
    }
    out += "</ol>";
  }
  out +=
      "<table><thead><tr><th>metric</th><th>mean</th><th>95% interval</th><th>scored</th>"
      "<th>undefined</th><th>failed</th><th>better</th></tr></thead><tbody>";
  for (bool core : {true, false}) {
    for (const auto& [stage, heading] : metrics::PipelineStages()) {
      std::string rows;
      for (const MetricSummary& m : s.metrics) {
        if (metrics::IsCoreMetric(m.key) != core || metrics::PipelineStage(m.key) != stage)
          continue;
        rows += fmt::format(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
            "</tr>",
            EscapeMarkup(m.key), m.scored > 0 ? fmt::format("{:.4f}", m.mean()) : "-",
            m.scored == 0 || m.interval == "none"
                ? "-"
                : fmt::format("[{:.4f}, {:.4f}]", m.ci_low, m.ci_high),
            m.scored, m.undefined, m.failed, DirectionWord(m.direction));
      }
      if (!rows.empty()) {
        out += fmt::format("<tr><th colspan=7 style=\"text-align:left\">{}{}</th></tr>", heading,
                           core ? "" : " (more)");
        out += rows;
      }
    }
  }
  out += "</tbody></table>";
  for (const std::string& note : s.notes)
    out += "<p><small>note: " + EscapeMarkup(note) + "</small></p>";
  return out + "</div>";
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
  if (s.sequential.used) {
    const SequentialOutcome& q = s.sequential;
    out += fmt::format(",\"sequential\":{{\"judged\":{},\"not_judged\":{},\"decided\":{}", q.judged,
                       q.not_judged, q.decided ? "true" : "false");
    out += ",\"not_judged_file\":";
    AppendJsonString(out, q.not_judged_file);
    out += ",\"gates\":[";
    for (size_t i = 0; i < q.gates.size(); ++i) {
      const SequentialGate& g = q.gates[i];
      out += i > 0 ? ",{\"name\":" : "{\"name\":";
      AppendJsonString(out, g.name);
      out += fmt::format(",\"decided\":{},\"pass\":{},\"low\":", g.decided ? "true" : "false",
                         g.pass ? "true" : "false");
      AppendJsonNumber(out, g.low);
      out += ",\"high\":";
      AppendJsonNumber(out, g.high);
      out += fmt::format(",\"rows\":{}}}", g.rows);
    }
    out += "]}";
  }
  out += "}";
  return out;
}

}  // namespace tala::io
