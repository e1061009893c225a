#include <gtest/gtest.h>

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
            "| metric | mean | 95% interval | scored | undefined |\n|---|---:|---|---:|---:|\n"
            "| faithfulness | 0.5000 | [0.0945, 0.9055] | 2 | 0 |\n"
            "| bleu | 0.5000 | [0.5000, 0.5000] | 1 | 1 |\n"
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
