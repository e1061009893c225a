#include <gtest/gtest.h>

#include "io/reports/html_report.h"
#include "io/reports/junit_report.h"
#include "io/reports/markdown_report.h"

namespace tala::io {
namespace {

ResultsFile Sample() {
  ResultsFile f;
  f.metric_keys = {"faithfulness", "bleu"};
  f.rows.push_back({"a", {{"faithfulness", 1.0}, {"bleu", std::nullopt}}, "healthy"});
  f.rows.push_back({"b,\"2\"", {{"faithfulness", 0.0}, {"bleu", 0.5}}, "generator not grounded"});
  return f;
}

// Golden snapshot: the exact Markdown a CI job summary shows for this run.
TEST(MarkdownReportTest, GoldenSnapshot) {
  EXPECT_EQ(RenderMarkdown(Sample(), "run"),
            "## tala: run\n\n2 rows\n\n"
            "**Diagnosis: the generator is the principal failure: generator not grounded in 1 of "
            "2 rows (50%).**\n\n"
            "question → retriever: 0 of 2 rows fail (0%) → generator: 1 of 2 rows fail (50%) → "
            "answer: healthy in 1 of 2 rows\n\n"
            "Worst rows (faithfulness):\n- `b,\"2\"` 0.000\n\n"
            "| metric | mean | 95% interval | scored | undefined | failed |\n"
            "|---|---:|---|---:|---:|---:|\n"
            "| *generator* | | | | | |\n"
            "| faithfulness | 0.5000 | [0.0945, 0.9055] | 2 | 0 | 0 |\n"
            "| *against the reference* | | | | | |\n"
            "| bleu | 0.5000 | n too small | 1 | 1 | 0 |\n"
            "\n| diagnosis | rows | examples |\n|---|---:|---|\n"
            "| generator not grounded | 1 | b,\"2\" |\n| healthy | 1 | a |\n");
}

TEST(CsvReportTest, QuotesFieldsAndLeavesNullsEmpty) {
  EXPECT_EQ(RenderCsv(Sample()),
            "id,faithfulness,bleu,diagnosis\n"
            "a,1,,healthy\n"
            "\"b,\"\"2\"\"\",0,0.5,generator not grounded\n");
}

}  // namespace
}  // namespace tala::io

namespace tala::io {
namespace {

TEST(JunitReportTest, OneCasePerMetricWithFailuresEscaped) {
  ResultsFile f;
  f.metric_keys = {"faithfulness", "rouge(type=rouge2)"};
  f.rows.push_back({"a", {{"faithfulness", 0.5}, {"rouge(type=rouge2)", std::nullopt}}, ""});
  f.rows.push_back({"b", {{"faithfulness", 1.0}, {"rouge(type=rouge2)", std::nullopt}}, ""});
  std::string xml = RenderJunit("suite <x>", MetricCases(f));
  EXPECT_NE(xml.find("<testsuites tests=\"2\" failures=\"1\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"suite &lt;x&gt;\""), std::string::npos);
  EXPECT_NE(xml.find("<system-out>mean 0.7500 over 2 scored rows (0 null)</system-out>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<failure message=\"no row was scored (2 null)\">"), std::string::npos) << xml;
}

TEST(HtmlReportTest, EmbedsRowsSafelyAndShowsACardPerMetric) {
  ResultsFile f;
  f.metric_keys = {"faithfulness"};
  ResultRow row{"x", {{"faithfulness", 0.25}}, "generator not grounded"};
  row.json = R"({"id":"x","scores":{"faithfulness":0.25},"inputs":{"response":"</script><i>"}})";
  f.rows.push_back(row);
  std::string html = RenderHtml(f, "r.jsonl");
  EXPECT_EQ(html.find("</script><i>"), std::string::npos);
  EXPECT_NE(html.find("<\\/script><i>"), std::string::npos);
  EXPECT_NE(html.find("<h3>faithfulness</h3>"), std::string::npos);
  EXPECT_NE(html.find("data-diagnosis=\"generator not grounded\""), std::string::npos);
}

}  // namespace
}  // namespace tala::io
