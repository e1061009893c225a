#include "io/reports/markdown_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/intervals.h"

namespace tala::io {

namespace {
std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
}  // namespace

std::string RenderMarkdown(const ResultsFile& results, const std::string& title) {
  std::string out = fmt::format("## tala: {}\n\n{} rows\n\n", title, results.rows.size());
  out += "| metric | mean | 95% interval | scored | undefined |\n|---|---:|---|---:|---:|\n";
  for (const std::string& key : results.metric_keys) {
    auto [values, undefined] = ColumnOf(results, key);
    size_t scored = values.size();
    auto st = analysis::Summarise(std::move(values));
    out += st ? fmt::format("| {} | {:.4f} | [{:.4f}, {:.4f}] | {} | {} |\n", key, st->mean,
                            st->ci_low, st->ci_high, scored, undefined)
              : fmt::format("| {} | – | – | 0 | {} |\n", key, undefined);
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
