#include "io/reports/junit_report.h"

#include <fmt/format.h>

#include "io/reports/markup_escape.h"

namespace tala::io {

namespace {}  // namespace

std::string RenderJunit(const std::string& suite, const std::vector<JunitCase>& cases) {
  int failures = 0;
  for (const JunitCase& c : cases) failures += c.passed ? 0 : 1;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites tests=\"{}\" failures=\"{}\">\n", cases.size(), failures);
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">\n",
                     EscapeMarkup(suite), cases.size(), failures);
  for (const JunitCase& c : cases) {
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n", EscapeMarkup(suite),
                       EscapeMarkup(c.name));
    if (!c.passed) {
      out += fmt::format("      <failure message=\"{}\">{}</failure>\n", EscapeMarkup(c.message),
                         EscapeMarkup(c.message));
    } else {
      out += fmt::format("      <system-out>{}</system-out>\n", EscapeMarkup(c.message));
    }
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

std::vector<JunitCase> MetricCases(const ResultsFile& results) {
  std::vector<JunitCase> cases;
  for (const std::string& key : results.metric_keys) {
    MetricColumn column = ColumnOf(results, key);
    size_t scored = column.values.size();
    JunitCase c{key, scored > 0, ""};
    c.message = scored > 0 ? fmt::format("mean {:.4f} over {} scored rows ({} null)", column.mean(),
                                         scored, column.nulls)
                           : fmt::format("no row was scored ({} null)", column.nulls);
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace tala::io
