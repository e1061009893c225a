// End-to-end: tala compare --pairwise (issue 55 item 2) with the offline judge's readings and
// with the mock LLM judge, unbiased and biased towards the first answer shown.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>

#include "cli/child_process.h"
#include "cli/run_tala.h"
#include "support/temp_dir.h"

namespace tala {
namespace {

using nlohmann::json;
using tala::testing::RunTala;
using tala::testing::TempDir;

// 40 rows; the candidate names the wrong town in rows 5, 15, 25, 35 and is otherwise the same.
std::string Rows(bool candidate) {
  static const char* kTowns[] = {"Arden", "Bexley", "Corby", "Dunmore", "Elgin"};
  std::string out;
  for (int i = 0; i < 40; ++i) {
    const std::string n = std::to_string(i), town = kTowns[i % 5];
    const bool wrong = candidate && i % 10 == 5;
    out += "{\"id\":\"r" + n + "\",\"user_input\":\"What is the capital of region " + n +
           "?\",\"response\":\"The capital of region " + n + " is " +
           (wrong ? kTowns[(i + 2) % 5] : town) + ".\",\"retrieved_contexts\":[\"Region " + n +
           " has its capital in " + town + ", a market town.\"]}\n";
  }
  return out;
}

class PairwiseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = dir_.path() + "/base.jsonl";
    cand_ = dir_.path() + "/cand.jsonl";
    ASSERT_EQ(
        RunTala("eval " + dir_.Write("b.jsonl", Rows(false)) + " -m faithfulness -q -o " + base_)
            .exit_code,
        0);
    ASSERT_EQ(
        RunTala("eval " + dir_.Write("c.jsonl", Rows(true)) + " -m faithfulness -q -o " + cand_)
            .exit_code,
        0);
  }
  // tala compare --pairwise with the mock as an OpenAI judge (set up by a tala.toml the
  // environment names; no cache, so each mock answers for itself).
  tala::testing::CommandOutput CompareWithMock(const std::vector<std::string>& mock_flags,
                                               const std::string& flags) {
    std::string url;
    auto mock = tala::testing::StartMockJudge(mock_flags, &url);
    const std::string toml =
        dir_.Write("tala.toml", "base_url = \"" + url + "\"\ncache = \"off\"\nmax_retries = 0\n");
    ::setenv("TALA_CONFIG", toml.c_str(), 1);
    ::setenv("OPENAI_API_KEY", "test-key", 1);
    auto r = RunTala("compare " + base_ + " " + cand_ + " --pairwise --judge openai:mock-model " +
                     flags + " 2>&1");
    ::unsetenv("TALA_CONFIG");
    return r;
  }
  json WithMock(const std::vector<std::string>& mock_flags, const std::string& flags = "",
                int exit_code = 0) {
    auto r = CompareWithMock(mock_flags, "--json " + flags);
    EXPECT_EQ(r.exit_code, exit_code) << r.out;
    return json::parse(r.out);
  }
  TempDir dir_;
  std::string base_, cand_;
};

TEST_F(PairwiseTest, AnUnbiasedJudgeFollowsTheAnswersAndABiasedOneIsCaughtBySwapping) {
  json fair = WithMock({});
  EXPECT_EQ(fair["pairs"], 40);
  EXPECT_EQ(fair["losses"], 4);  // the four wrong towns
  EXPECT_EQ(fair["wins"], 0);
  EXPECT_EQ(fair["ties"], 36);
  EXPECT_EQ(fair["position_bias"], 0.0);
  EXPECT_EQ(fair["judge_calls"], 80);  // each pair twice, the order swapped
  for (const json& row : fair["rows"]) {
    if (row["verdict"] == "loss") {
      EXPECT_EQ(row["id"].get<std::string>().back(), '5');
    }
  }
  // A judge that always picks the first answer shown: every verdict flips with the order, so
  // every pair is a tie, and the bias is measured.
  json biased = WithMock({"--position-bias", "first"});
  EXPECT_EQ(biased["ties"], 40);
  EXPECT_EQ(biased["position_bias"], 1.0);
  EXPECT_EQ(biased["win_rate"], 0.5);
}

// Issue 56 item 4: --sequential judges the pairs in a seeded order, a batch at a time, and stops
// once the anytime-valid interval decides the gate. The candidate ties 36 pairs and loses 4 (win
// rate 0.45): a gate at 0.9 fails after a few batches, with the pairs left listed and their calls
// saved; a gate at the run's own win rate cannot be decided, so every pair is judged and the
// gate reads the full run's rate. Without a gate or a width there is nothing to stop on.
TEST_F(PairwiseTest, SequentialStopsJudgingOnceTheWinRateGateIsDecided) {
  json failed = WithMock({}, "--sequential --min-win-rate 0.9", 1);
  ASSERT_TRUE(failed.contains("sequential")) << failed.dump();
  const json& q = failed["sequential"];
  EXPECT_TRUE(q["decided"]);
  EXPECT_EQ(q["passed"], false);
  EXPECT_LT(q["pairs_judged"].get<int>(), 40);
  EXPECT_EQ(q["pairs_judged"].get<size_t>() + q["not_judged"].size(), 40u);
  EXPECT_EQ(failed["pairs"], q["pairs_judged"]);
  EXPECT_EQ(failed["judge_calls"], 2 * q["pairs_judged"].get<int>());
  EXPECT_LT(q["anytime_ci"][1].get<double>(), 0.9);
  json again = WithMock({}, "--sequential --min-win-rate 0.9", 1);
  EXPECT_EQ(again["sequential"]["not_judged"], q["not_judged"]) << "the order is seeded";
  json open = WithMock({}, "--sequential --min-win-rate 0.45", 0);
  EXPECT_FALSE(open["sequential"]["decided"]);
  EXPECT_TRUE(open["sequential"]["passed"].is_null());
  EXPECT_EQ(open["pairs"], 40);
  EXPECT_EQ(open["losses"], 4);
  auto r = RunTala("compare " + base_ + " " + cand_ +
                   " --pairwise --judge openai:mock-model --sequential 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--min-win-rate W or --target-width W"), std::string::npos) << r.out;
  r = RunTala("compare " + base_ + " " + cand_ + " --sequential --min-win-rate 0.5 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("needs --pairwise"), std::string::npos) << r.out;
}

// A judge that fails on every call gives no verdict: that is the judge failing (exit 3, with
// its reason), not a candidate that lost every pair, with or without --sequential.
TEST_F(PairwiseTest, AJudgeThatGivesNoVerdictIsAFailureNotALoss) {
  for (const std::string flags : {"--min-win-rate 0.5", "--min-win-rate 0.5 --sequential"}) {
    auto r = CompareWithMock({"--always", "500"}, flags);
    EXPECT_EQ(r.exit_code, 3) << r.out;
    EXPECT_NE(r.out.find("the judge gave no verdict on any of the 40 pairs"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("HTTP 500"), std::string::npos) << r.out;
  }
}

TEST_F(PairwiseTest, TheOfflineJudgeComparesItsReadingsAndTheWinRateGates) {
  auto r = RunTala("compare " + base_ + " " + cand_ + " --pairwise --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json j = json::parse(r.out);
  EXPECT_EQ(j["losses"], 4);
  EXPECT_TRUE(j["position_bias"].is_null());
  EXPECT_NEAR(j["win_rate"].get<double>(), 36 * 0.5 / 40, 1e-9);
  r = RunTala("compare " + base_ + " " + cand_ + " --pairwise --min-win-rate 0.5");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("FAIL  win rate >= 0.500: 0.450 over 40 pairs"), std::string::npos) << r.out;
  r = RunTala("compare " + cand_ + " " + base_ + " --pairwise --min-win-rate 0.5");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  // A criterion in one's own words needs a model; a gate needs --pairwise.
  r = RunTala("compare " + base_ + " " + cand_ + " --pairwise --criterion 'polite' 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("needs an LLM judge"), std::string::npos) << r.out;
  r = RunTala("compare " + base_ + " " + cand_ + " --min-win-rate 0.5 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
}

}  // namespace
}  // namespace tala
