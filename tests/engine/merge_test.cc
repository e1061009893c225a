// Shards and merge (include/tala/shard.h, include/tala/merge.h): a run split into shards and
// merged gives the single run's results file and summary, for every way of splitting, with bad
// rows, rows without ids, an LLM judge's accounting and failed rows; and a merge refuses what
// is not every part of one run.

#include "tala/merge.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "io/reports/console_summary.h"
#include "support/mock_judge_server.h"
#include "support/results_text.h"
#include "support/temp_dir.h"
#include "tala/evaluate.h"
#include "tala/shard.h"

namespace tala {
namespace {

using testing::MockJudgeServer;
using testing::TempDir;
using testing::Undated;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The summary as `tala eval --json` prints it, without the results path.
std::string SummaryText(const RunSummary& s) {
  RunSummary copy = s;
  copy.results_path.clear();
  return io::FormatSummaryJson(copy);
}

std::string DemoData() {
  return std::string(TALA_SOURCE_DIR) + "/examples/data/interactions.jsonl";
}

struct Split {
  int count;
  ShardBy by;
};

class MergeTest : public ::testing::Test {
 protected:
  // Runs `base` whole and in shards, merges, and checks both agree; returns the single run.
  RunSummary ExpectSameAsSingle(const EvalOptions& base, Split split) {
    EvalOptions single = base;
    single.out = dir_.path() + "/single.jsonl";
    single.overwrite = true;  // each split scores the single run again
    auto whole = Evaluate(single);
    EXPECT_TRUE(whole.has_value()) << whole.error().ToString();
    MergeOptions merge;
    merge.out = dir_.path() + "/merged.jsonl";
    for (int i = 0; i < split.count; ++i) {
      EvalOptions part = base;
      part.shard = {i, split.count, split.by};
      part.out = dir_.path() + "/shard-" + std::to_string(i) + ".jsonl";
      auto done = Evaluate(part);
      EXPECT_TRUE(done.has_value()) << done.error().ToString();
      merge.shards.push_back(part.out);
    }
    std::reverse(merge.shards.begin(), merge.shards.end());  // any order
    auto merged = Merge(merge);
    EXPECT_TRUE(merged.has_value()) << merged.error().ToString();
    if (!whole || !merged) return {};
    EXPECT_EQ(Undated(ReadFile(single.out)), Undated(ReadFile(merge.out)));
    EXPECT_EQ(SummaryText(*whole), SummaryText(*merged));
    EXPECT_EQ(io::FormatSummaryTable(*whole), io::FormatSummaryTable(*merged));
    EXPECT_EQ(merged->results_path, merge.out);
    // Without the shards' rows files (a shard copied without them, or an older tala's) the rows
    // are parsed instead, to the same bytes and summary.
    for (const std::string& shard : merge.shards) {
      EXPECT_TRUE(std::filesystem::exists(shard + ".shard.rows")) << shard;
      std::filesystem::remove(shard + ".shard.rows");
    }
    merge.out = dir_.path() + "/merged-parsed.jsonl";
    auto parsed = Merge(merge);
    EXPECT_TRUE(parsed.has_value()) << parsed.error().ToString();
    if (!parsed) return {};
    EXPECT_EQ(Undated(ReadFile(single.out)), Undated(ReadFile(merge.out)));
    EXPECT_EQ(SummaryText(*whole), SummaryText(*parsed));
    return *whole;
  }
  TempDir dir_;
};

TEST_F(MergeTest, FourShardsOfTheDemoDataEqualTheSingleRun) {
  EvalOptions o;
  o.dataset = DemoData();
  for (ShardBy by : {ShardBy::kRange, ShardBy::kHash}) {
    RunSummary s = ExpectSameAsSingle(o, {4, by});
    EXPECT_EQ(s.rows_scored, 22);
  }
}

TEST_F(MergeTest, MoreShardsThanRowsLeavesSomeEmpty) {
  std::string rows;
  for (int i = 0; i < 3; ++i) {
    rows += R"({"id":"q)" + std::to_string(i) +
            R"(","user_input":"Who?","response":"Ann did it.","reference":"Ann did it."})"
            "\n";
  }
  EvalOptions o;
  o.dataset = dir_.Write("three.jsonl", rows);
  o.metrics = "exact_match,rouge";
  ExpectSameAsSingle(o, {8, ShardBy::kRange});
  ExpectSameAsSingle(o, {5, ShardBy::kHash});
}

// Rows without ids take their number in the whole file; errors name lines in the whole file.
std::string RowsWithGaps() {
  std::string text;
  for (int i = 0; i < 40; ++i) {
    if (i == 9) {
      text += "{\"user_input\": 5}\n";
    } else if (i == 23) {
      text += "not json\n";
    } else if (i == 30) {
      text += "\n   \n";
    } else {
      std::string id = i % 4 == 0 ? "\"id\":\"k" + std::to_string(i) + "\"," : "";
      text += "{" + id + "\"user_input\":\"What is " + std::to_string(i) +
              "?\",\"response\":\"It is " + std::to_string(i % 3) +
              ".\",\"retrieved_contexts\":[\"It is " + std::to_string(i % 5) +
              ".\"],\"reference\":\"It is " + std::to_string(i % 2) + ".\"}\n";
    }
  }
  return text;
}

TEST_F(MergeTest, BadRowsAndDefaultIdsMergeAsInOneRun) {
  EvalOptions o;
  o.on_error = OnError::kSkip;
  for (const char* name : {"gaps.jsonl"}) {
    o.dataset = dir_.Write(name, RowsWithGaps());
    for (Split split :
         {Split{3, ShardBy::kRange}, Split{4, ShardBy::kHash}, Split{7, ShardBy::kRange}}) {
      RunSummary s = ExpectSameAsSingle(o, split);
      EXPECT_EQ(s.rows_skipped, 2);
      ASSERT_EQ(s.errors.size(), 2u);
      EXPECT_EQ(s.errors[0].where().line, 10);
      EXPECT_EQ(s.errors[1].where().line, 24);
    }
  }
  std::string merged = ReadFile(dir_.path() + "/merged.jsonl");
  EXPECT_NE(merged.find("{\"id\":2,"), std::string::npos);   // the second row had no id
  EXPECT_NE(merged.find("{\"id\":39,"), std::string::npos);  // after the blank lines
}

TEST_F(MergeTest, CsvAndJsonArraysSplitByBlocksOfRows) {
  std::string csv = "id,user_input,response,reference\n";
  std::string json = "[";
  for (int i = 0; i < 17; ++i) {
    std::string n = std::to_string(i);
    csv +=
        "c" + n + ",Q" + n + "?,A " + std::to_string(i % 3) + ",A " + std::to_string(i % 2) + "\n";
    json += std::string(i ? "," : "") + R"({"id":"j)" + n +
            R"(","user_input":"Q?","response":"A )" + std::to_string(i % 3) +
            R"(","reference":"A 1"})";
  }
  json += "]";
  EvalOptions o;
  o.metrics = "exact_match,non_llm_string_similarity";
  o.dataset = dir_.Write("rows.csv", csv);
  ExpectSameAsSingle(o, {4, ShardBy::kRange});
  o.dataset = dir_.Write("rows.json", json);
  ExpectSameAsSingle(o, {3, ShardBy::kRange});
  ExpectSameAsSingle(o, {3, ShardBy::kHash});
}

TEST_F(MergeTest, LlmJudgeAccountingAndFailedRowsMerge) {
  MockJudgeServer server;
  ASSERT_TRUE(server.Start());
  EvalOptions o;
  o.dataset = DemoData();
  o.metrics = "faithfulness,context_recall,response_relevancy";
  o.judge = "openai:mock-model";
  o.llm.base_url = server.base_url();
  o.llm.api_key = "test";
  o.llm.cache = "off";
  o.llm.max_retries = 0;
  o.llm.max_in_flight = 8;  // within the mock's 16 threads, which keep-alive connections hold
  // The separate calls: each serves one of these metrics. A call two metrics share (the
  // combined layout's) is split between them from the run's totals, so shards' splits can each
  // round the odd token the other way: equal within a token per shard, not to the digit.
  o.llm.layout = "separate";
  RunSummary s = ExpectSameAsSingle(o, {3, ShardBy::kHash});
  EXPECT_TRUE(s.accounting.used);
  EXPECT_GT(s.accounting.total.calls, 0);
  // Every call fails: each row fails, for the same reason, in one run or in shards.
  server.SetStandingFault(testing::Fault::kServerError);
  s = ExpectSameAsSingle(o, {3, ShardBy::kRange});
  EXPECT_EQ(s.rows_failed, 22);
  ASSERT_FALSE(s.failure_reasons.empty());
  EXPECT_EQ(s.failure_reasons[0].second, 22);
}

class MergeRefusalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 3; ++i) {
      EvalOptions part;
      part.dataset = DemoData();
      part.metrics = "faithfulness,hit_rate";
      part.shard = {i, 3, ShardBy::kRange};
      part.out = dir_.path() + "/s" + std::to_string(i) + ".jsonl";
      ASSERT_TRUE(Evaluate(part).has_value());
      shards_.push_back(part.out);
    }
  }
  Status MergeOf(std::vector<std::string> shards) {
    MergeOptions o;
    o.shards = std::move(shards);
    o.out = dir_.path() + "/merged.jsonl";
    auto merged = Merge(o);
    EXPECT_FALSE(std::filesystem::exists(o.out) && !merged) << "a failed merge writes nothing";
    return merged ? OkStatus() : merged.error();
  }
  TempDir dir_;
  std::vector<std::string> shards_;
};

TEST_F(MergeRefusalTest, AMissingShardIsNamed) {
  Status s = MergeOf({shards_[0], shards_[2]});
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(s.message().find("missing: 1/3"), std::string::npos) << s.message();
}

TEST_F(MergeRefusalTest, AShardGivenTwiceIsNamed) {
  Status s = MergeOf({shards_[0], shards_[1], shards_[1] + ".shard.json"});
  EXPECT_NE(s.message().find("given twice"), std::string::npos) << s.message();
}

TEST_F(MergeRefusalTest, AnUnfinishedShardHasNoState) {
  std::filesystem::remove(ShardStatePath(shards_[1]));
  Status s = MergeOf(shards_);
  EXPECT_EQ(s.code(), ErrorCode::kNotFound);
  EXPECT_NE(s.message().find("has not finished"), std::string::npos) << s.message();
}

TEST_F(MergeRefusalTest, ShardsOfOtherRunsDoNotMix) {
  EvalOptions other;
  other.dataset = DemoData();
  other.metrics = "faithfulness";
  other.shard = {1, 3, ShardBy::kRange};
  other.out = dir_.path() + "/other.jsonl";
  ASSERT_TRUE(Evaluate(other).has_value());
  Status s = MergeOf({shards_[0], other.out, shards_[2]});
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(s.message().find("differ in metrics"), std::string::npos) << s.message();
}

TEST_F(MergeRefusalTest, ADamagedRowsFileIsReadAroundNotTrusted) {
  ASSERT_TRUE(MergeOf(shards_).ok());
  const std::string intact = ReadFile(dir_.path() + "/merged.jsonl");
  std::string rows = ReadFile(shards_[1] + ".shard.rows");
  ASSERT_GT(rows.size(), 64u);
  rows[rows.size() / 2] ^= 0x5A;  // its digest no longer matches the state's
  std::ofstream(shards_[1] + ".shard.rows", std::ios::binary) << rows;
  ASSERT_TRUE(MergeOf(shards_).ok());
  EXPECT_EQ(Undated(intact), Undated(ReadFile(dir_.path() + "/merged.jsonl")));
  std::ofstream(shards_[2] + ".shard.rows", std::ios::binary) << "cut";
  ASSERT_TRUE(MergeOf(shards_).ok());
  EXPECT_EQ(Undated(intact), Undated(ReadFile(dir_.path() + "/merged.jsonl")));
}

TEST_F(MergeRefusalTest, AnEditedResultsFileIsCaught) {
  std::string text = ReadFile(shards_[1]);
  size_t last = text.rfind('\n', text.size() - 2);
  std::ofstream(shards_[1]) << text.substr(0, last + 1);  // one row fewer
  Status s = MergeOf(shards_);
  EXPECT_EQ(s.code(), ErrorCode::kDataError);
  EXPECT_NE(s.message().find("run the shard again"), std::string::npos) << s.message();
}

TEST(ShardRunTest, AFailedShardLeavesNothingAndReplacesAnOlderOne) {
  TempDir dir;
  EvalOptions o;
  o.dataset = DemoData();
  o.metrics = "hit_rate";
  o.shard = {0, 2, ShardBy::kRange};
  o.out = dir.path() + "/s0.jsonl";
  ASSERT_TRUE(Evaluate(o).has_value());
  ASSERT_TRUE(std::filesystem::exists(ShardStatePath(o.out)));
  o.dataset = dir.Write("bad.jsonl", "{\"user_input\": 1}\n");
  EXPECT_FALSE(Evaluate(o).has_value());
  EXPECT_FALSE(std::filesystem::exists(o.out));
  EXPECT_FALSE(std::filesystem::exists(ShardStatePath(o.out)));
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().string().find(".partial"), std::string::npos) << entry.path();
  }
}

TEST(ShardRunTest, OptionsThatNeedTheWholeRunAreRefused) {
  EvalOptions o;
  o.dataset = DemoData();
  o.shard = {0, 2, ShardBy::kRange};
  o.out = "-";
  EXPECT_EQ(Evaluate(o).error().code(), ErrorCode::kInvalidArgument);
  o.out = "/tmp/x.jsonl";
  o.resume = true;
  EXPECT_NE(Evaluate(o).error().message().find("not resumed"), std::string::npos);
}

TEST(ShardSpecTest, ParsesAndNamesItsMistakes) {
  auto s = ParseShard("2/4", "hash");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->index, 2);
  EXPECT_EQ(s->count, 4);
  EXPECT_EQ(s->by, ShardBy::kHash);
  EXPECT_NE(ParseShard("4/4", "range").error().message().find("0/4 to 3/4"), std::string::npos);
  EXPECT_FALSE(ParseShard("1-4", "range").has_value());
  EXPECT_FALSE(ParseShard("1/4x", "range").has_value());
  EXPECT_FALSE(ParseShard("1/4", "random").has_value());
  // The hash is fixed for good (the first 8 bytes of SHA-256, big-endian, modulo the count):
  // shards made on other machines or by other versions still merge.
  EXPECT_EQ(ShardOfId("demo-01", 4), 2);
  EXPECT_EQ(ShardOfId("demo-01", 7), 5);
  EXPECT_EQ(ShardOfId("r1", 4), 1);
  int seen[4] = {0, 0, 0, 0};
  for (int i = 0; i < 400; ++i) ++seen[ShardOfId("row-" + std::to_string(i), 4)];
  for (int n : seen) EXPECT_GT(n, 60);
}

}  // namespace
}  // namespace tala
