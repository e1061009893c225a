// The run history (include/tala/history.h) on a SQLite store: drops flagged only where real,
// segments never compared across, a results file stored once, pruning, tags, aliases, JSON.

#include "tala/history.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "history/local_store.h"
#include "history/run_files.h"
#include "support/temp_dir.h"

namespace tala {
namespace {

using testing::RunFile;
using testing::TempDir;

std::unique_ptr<History> Store(const TempDir& dir) {
  auto h = History::Open(dir.path() + "/.tala/history.sqlite");
  EXPECT_TRUE(h) << h.error().ToString();
  return std::move(*h);
}

std::vector<int> FlaggedRuns(const Trend& t) {
  std::vector<int> out;
  for (size_t i = 0; i < t.points.size(); ++i) {
    if (t.points[i].drop) out.push_back(static_cast<int>(i) + 1);
  }
  return out;
}

TEST(HistoryTest, ThirtyRunsFlagTheRealDropOnlyAndNothingWithoutOne) {
  for (bool with_drop : {true, false}) {
    TempDir dir;
    auto h = Store(dir);
    for (int run = 1; run <= 30; ++run) {
      double drop = with_drop && run >= 20 ? 0.08 : 0.0;
      auto added =
          h->Add({.results = RunFile(dir, run, drop), .label = "run " + std::to_string(run)});
      ASSERT_TRUE(added) << added.error().ToString();
      ASSERT_TRUE(added->added);
    }
    auto t = h->TrendOf({.metric = "faithfulness"});
    ASSERT_TRUE(t) << t.error().ToString();
    ASSERT_EQ(t->points.size(), 30u);
    if (with_drop) {
      EXPECT_EQ(FlaggedRuns(*t), std::vector<int>{20});
      const TrendPoint& p = t->points[19];
      EXPECT_EQ(p.run.label, "run 20");
      EXPECT_NEAR(p.change, -0.08, 0.02);
      EXPECT_LT(p.change_high, 0);
      EXPECT_EQ(p.pairs, 120);
      EXPECT_EQ(p.base_id, t->points[18].run.id);
    } else {
      EXPECT_TRUE(FlaggedRuns(*t).empty());
    }
    // Every run after the first is compared with the one before it, on the same rows.
    for (size_t i = 1; i < t->points.size(); ++i) EXPECT_TRUE(t->points[i].compared);
    // The other metric has no drop either way.
    auto recall = h->TrendOf({.metric = "context_recall"});
    ASSERT_TRUE(recall);
    EXPECT_TRUE(FlaggedRuns(*recall).empty());
    // The printed trend says "drop" on run 20's line only.
    std::string text = FormatTrend(*t);
    int lines_with_drop = 0;
    for (size_t at = 0, end; at < text.size(); at = end + 1) {
      end = text.find('\n', at);
      std::string line = text.substr(at, end - at);
      if (line.size() > 2 && line.substr(line.size() - 4) == "drop") {
        ++lines_with_drop;
        EXPECT_NE(line.find("run 20"), std::string::npos) << line;
      }
    }
    EXPECT_EQ(lines_with_drop, with_drop ? 1 : 0) << text;
  }
}

TEST(HistoryTest, TheMinimumEffectKeepsSmallRealChangesUnflagged) {
  TempDir dir;
  auto h = Store(dir);
  ASSERT_TRUE(h->Add({.results = RunFile(dir, 1, 0)}));
  ASSERT_TRUE(h->Add({.results = RunFile(dir, 2, 0.08)}));
  auto flagged = h->TrendOf({.metric = "faithfulness", .min_effect = 0.02});
  auto too_small = h->TrendOf({.metric = "faithfulness", .min_effect = 0.1});
  ASSERT_TRUE(flagged && too_small);
  EXPECT_TRUE(flagged->points[1].drop);
  EXPECT_FALSE(too_small->points[1].drop);
  EXPECT_LT(too_small->points[1].change_high, 0);  // still real: the interval excludes 0
}

TEST(HistoryTest, AnotherDatasetOrJudgeStartsASegmentThatIsNeverComparedAcross) {
  TempDir dir;
  auto h = Store(dir);
  ASSERT_TRUE(h->Add({.results = RunFile(dir, 1, 0)}));
  ASSERT_TRUE(h->Add({.results = RunFile(dir, 2, 0.3, "d2")}));  // another golden set
  ASSERT_TRUE(h->Add({.results = RunFile(dir, 3, 0.3)}));        // back on the first
  ASSERT_TRUE(h->Add({.results = RunFile(dir, 4, 0.3, "d1", "openai:gpt-4o")}));
  ASSERT_TRUE(h->Add({.results = RunFile(dir, 5, 0.3, "d1", "openai:gpt-4o")}));
  auto t = h->TrendOf({.metric = "faithfulness"});
  ASSERT_TRUE(t);
  ASSERT_EQ(t->points.size(), 5u);
  EXPECT_EQ(t->points[1].new_segment, "another dataset");
  EXPECT_EQ(t->points[2].new_segment, "another dataset");
  EXPECT_EQ(t->points[3].new_segment, "another judge (openai:gpt-4o)");
  std::vector<int> segments;
  for (const TrendPoint& p : t->points) segments.push_back(p.segment);
  EXPECT_EQ(segments, (std::vector<int>{0, 1, 2, 3, 3}));
  // A drop of 0.3 across a segment boundary is never a comparison, so never a drop.
  for (int i : {0, 1, 2, 3}) EXPECT_FALSE(t->points[i].compared) << i;
  EXPECT_TRUE(t->points[4].compared);
  EXPECT_TRUE(FlaggedRuns(*t).empty());
  EXPECT_NE(FormatTrend(*t).find("new segment: another dataset"), std::string::npos);
}

TEST(HistoryTest, AResultsFileIsStoredOnce) {
  TempDir dir;
  auto h = Store(dir);
  std::string file = RunFile(dir, 1, 0);
  auto first = h->Add({.results = file, .label = "a"});
  auto again = h->Add({.results = file, .label = "b"});
  ASSERT_TRUE(first && again);
  EXPECT_TRUE(first->added);
  EXPECT_FALSE(again->added);
  EXPECT_EQ(again->run.id, first->run.id);
  EXPECT_EQ(again->run.label, "a");
  auto runs = h->Runs({});
  ASSERT_TRUE(runs);
  EXPECT_EQ(runs->size(), 1u);
}

TEST(HistoryTest, TagsFilterAndTrendsFollowTheFilteredRuns) {
  TempDir dir;
  auto h = Store(dir);
  ASSERT_TRUE(h->Add({.results = RunFile(dir, 1, 0), .tags = {{"branch", "main"}}}));
  ASSERT_TRUE(h->Add({.results = RunFile(dir, 2, 0.1), .tags = {{"branch", "feature"}}}));
  ASSERT_TRUE(h->Add({.results = RunFile(dir, 3, 0), .tags = {{"branch", "main"}}}));
  auto main_runs = h->Runs({{"branch", "main"}});
  ASSERT_TRUE(main_runs);
  ASSERT_EQ(main_runs->size(), 2u);
  auto main_trend = h->TrendOf({.metric = "faithfulness", .tags = {{"branch", "main"}}});
  auto all = h->TrendOf({.metric = "faithfulness"});
  ASSERT_TRUE(main_trend && all);
  // On main alone, run 3 follows run 1: no drop. Across all, run 2 (the feature) drops.
  EXPECT_EQ(main_trend->points[1].base_id, (*main_runs)[0].id);
  EXPECT_TRUE(FlaggedRuns(*main_trend).empty());
  EXPECT_EQ(FlaggedRuns(*all), std::vector<int>{2});
}

TEST(HistoryTest, PruneKeepsTheNewestAndTheirTrendStartsOver) {
  TempDir dir;
  auto h = Store(dir);
  for (int run = 1; run <= 6; ++run) ASSERT_TRUE(h->Add({.results = RunFile(dir, run, 0)}));
  auto removed = h->Prune({.keep = 4});
  ASSERT_TRUE(removed);
  EXPECT_EQ(*removed, 2);
  auto t = h->TrendOf({.metric = "faithfulness"});
  ASSERT_TRUE(t);
  ASSERT_EQ(t->points.size(), 4u);
  EXPECT_FALSE(t->points[0].compared);
  EXPECT_TRUE(t->points[1].compared);
  // Runs made in November 2026 are all older than a day.
  auto old = h->Prune({.older_than_days = 1});
  ASSERT_TRUE(old);
  EXPECT_EQ(*old, 4);
}

TEST(HistoryTest, AliasesNameTheStoredKeyAndUnknownMetricsListWhatIsStored) {
  TempDir dir;
  auto h = Store(dir);
  ASSERT_TRUE(h->Add({.results = RunFile(dir, 1, 0)}));
  auto unknown = h->TrendOf({.metric = "answer_relevancy"});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(unknown.error().message().find("context_recall, faithfulness"), std::string::npos)
      << unknown.error().message();
  auto alias = h->TrendOf({.metric = "llm_context_recall"});
  ASSERT_TRUE(alias) << alias.error().ToString();
  EXPECT_EQ(alias->metric, "context_recall");
}

TEST(HistoryTest, BadResultsFilesAreErrorsAndStoreNothing) {
  TempDir dir;
  auto h = Store(dir);
  auto missing = h->Add({.results = dir.path() + "/nope.jsonl"});
  ASSERT_FALSE(missing);
  std::string empty =
      dir.Write("empty.jsonl", "{\"id\":\"a\",\"scores\":{\"faithfulness\":null}}\n");
  auto none = h->Add({.results = empty});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message().find("no metric has a value"), std::string::npos);
  auto runs = h->Runs({});
  ASSERT_TRUE(runs);
  EXPECT_TRUE(runs->empty());
}

TEST(HistoryTest, JsonRoundTripsRunsAndTrends) {
  TempDir dir;
  auto h = Store(dir);
  ASSERT_TRUE(h->Add(
      {.results = RunFile(dir, 1, 0), .label = "a \"quoted\" label", .tags = {{"k", "v=w"}}}));
  ASSERT_TRUE(h->Add({.results = RunFile(dir, 2, 0.08)}));
  auto runs = h->Runs({});
  auto t = h->TrendOf({.metric = "faithfulness"});
  ASSERT_TRUE(runs && t);
  auto runs_back = ParseRunsJson(RunsJson(*runs));
  auto t_back = ParseTrendJson(TrendJson(*t));
  ASSERT_TRUE(runs_back && t_back);
  EXPECT_EQ(RunsJson(*runs_back), RunsJson(*runs));
  EXPECT_EQ(TrendJson(*t_back), TrendJson(*t));
  EXPECT_EQ((*runs_back)[0].tags[0].second, "v=w");
  EXPECT_FALSE(ParseTrendJson("{\"points\":[{\"drop\":3}]}"));
}

TEST(HistoryTest, ThePageCarriesEveryRunTrendAndRowForItsSelfTest) {
  TempDir dir;
  auto h = Store(dir);
  ASSERT_TRUE(h->Add({.results = RunFile(dir, 1, 0), .label = "first</script><b>"}));
  ASSERT_TRUE(h->Add({.results = RunFile(dir, 2, 0.08)}));
  auto page = h->PageHtml({});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->find("</script><b>"), std::string::npos);  // a label cannot close the script
  EXPECT_NE(page->find("\"ids\":{"), std::string::npos);     // rows embedded for comparing
  EXPECT_NE(page->find("#selftest"), std::string::npos);
}

}  // namespace
}  // namespace tala
