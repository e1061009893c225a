#include "io/reports/markdown_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "analysis/intervals.h"
#include "io/reports/diagnosis_overview.h"
#include "io/reports/offline_trust.h"
#include "metrics/registry.h"

namespace tala::io {

namespace {
// A text cell a spreadsheet would run as a formula (=, +, -, @, or a leading tab or CR) gets a
// leading apostrophe, as OWASP advises against CSV injection (F36). Numbers are written apart.
std::string CsvField(std::string s) {
  if (!s.empty() && std::string_view("=+-@\t\r").find(s[0]) != std::string_view::npos) {
    s.insert(0, 1, '\'');
  }
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
// A text on one line, cut to a readable length, for a Markdown list item.
std::string OneLine(std::string s) {
  for (char& c : s) c = c == '\n' || c == '\r' || c == '|' ? ' ' : c;
  if (s.size() > 160) {
    size_t cut = 157;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
    s = s.substr(0, cut) + "...";
  }
  return s;
}
}  // namespace

std::string RenderMarkdown(const ResultsFile& results, const std::string& title) {
  std::string out = fmt::format("## tala: {}\n\n{} rows\n\n", title, results.rows.size());
  // The diagnosis first: the pipeline, which half fails most, and the rows to read first.
  const DiagnosisOverview overview = OverviewOf(results);
  if (std::string verdict = VerdictText(overview); !verdict.empty()) {
    out += "**Diagnosis: " + verdict + ".**\n\n" + PipelineText(overview) + "\n\n";
    if (!overview.worst.empty()) {
      out += fmt::format("Worst rows ({}):\n", overview.metric);
      // The question and why the row failed, as the CLI summary shows them (N8).
      for (const auto& [value, row] : overview.worst) {
        out += fmt::format("- `{}` {:.3f}", row->id, value);
        if (!row->question.empty()) out += fmt::format(": \"{}\"", OneLine(row->question));
        if (!row->diagnosis_reason.empty()) out += " — " + OneLine(row->diagnosis_reason);
        out += "\n";
      }
      out += "\n";
    }
  }
  out +=
      "| metric | mean | 95% interval | scored | undefined | failed |\n"
      "|---|---:|---|---:|---:|---:|\n";
  // By the half of the pipeline each metric judges, core metrics first within each.
  for (const auto& [stage, heading] : metrics::PipelineStages()) {
    std::vector<std::string> keys;
    for (bool core : {true, false}) {
      for (const std::string& key : results.metric_keys) {
        if (metrics::PipelineStage(key) == stage && metrics::IsCoreMetric(key) == core) {
          keys.push_back(key);
        }
      }
    }
    if (!keys.empty()) out += fmt::format("| *{}* | | | | | |\n", heading);
    for (const std::string& key : keys) {
      auto [values, nulls] = ColumnOf(results, key);
      // Nulls the judge caused (failed calls) are told apart from rows the metric does not apply
      // to (F8), as the eval summary does.
      int64_t failed = 0;
      for (const ResultRow& r : results.rows) {
        auto it = r.scores.find(key);
        if (it == r.scores.end() || it->second) continue;
        failed += r.failed_on(key) ? 1 : 0;
      }
      const int64_t undefined = nulls - failed;
      size_t scored = values.size();
      auto st = analysis::Summarise(std::move(values));
      out += st ? fmt::format("| {} | {:.4f} | {} | {} | {} | {} |\n", key, st->mean,
                              analysis::IntervalText(*st), scored, undefined, failed)
                : fmt::format("| {} | – | – | 0 | {} | {} |\n", key, undefined, failed);
    }
  }
  std::map<std::string, std::vector<std::string>> by_diagnosis;
  for (const ResultRow& r : results.rows) {
    if (!r.diagnosis.empty()) by_diagnosis[r.diagnosis].push_back(r.id);
  }
  if (!by_diagnosis.empty()) {
    out += "\n| diagnosis | rows | examples |\n|---|---:|---|\n";
    for (const auto& [name, ids] : by_diagnosis) {
      std::string examples;
      for (size_t i = 0; i < ids.size() && i < 5; ++i) examples += (i ? ", " : "") + ids[i];
      out += fmt::format("| {} | {} | {} |\n", name, ids.size(), examples);
    }
  }
  if (const std::vector<OfflineTrustLine> trust = OfflineTrustLines(results); !trust.empty()) {
    out +=
        std::string("\n### How far to trust the offline judge\n\n") + kOfflineTrustAdvice + "\n\n";
    for (const OfflineTrustLine& line : trust) {
      out += "- **" + line.metric + "**: " + line.measured + ". *Misses:* " + line.misses + "\n";
    }
  }
  return out;
}

std::string RenderCsv(const ResultsFile& results) {
  std::string out = "id";
  for (const std::string& key : results.metric_keys) out += "," + CsvField(key);
  out += ",diagnosis\n";
  for (const ResultRow& r : results.rows) {
    out += CsvField(r.id);
    for (const std::string& key : results.metric_keys) {
      auto it = r.scores.find(key);
      out += ",";
      if (it != r.scores.end() && it->second) out += fmt::format("{}", *it->second);
    }
    out += "," + CsvField(r.diagnosis) + "\n";
  }
  return out;
}

}  // namespace tala::io
