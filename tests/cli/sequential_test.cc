// End-to-end: tala eval --sequential and tala ci --sequential (issue 56 item 4). 400 rows whose
// answers the offline judge reads as grounded; a candidate where a tenth of them name the wrong
// town. The sequence stops judging once the gate is decided, and decides as the full run does.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "cli/run_tala.h"
#include "support/temp_dir.h"

namespace tala {
namespace {

using nlohmann::json;
using tala::testing::RunTala;
using tala::testing::TempDir;

// 400 rows; `wrong` of every 100 name another town than their chunk (seeded positions).
std::string Rows(int wrong) {
  static const char* kTowns[] = {"Arden", "Bexley", "Corby", "Dunmore", "Elgin", "Fenwick"};
  std::mt19937_64 rng(3);
  std::string out;
  for (int i = 0; i < 400; ++i) {
    const std::string n = std::to_string(i), town = kTowns[i % 6];
    const bool bad = static_cast<int>(rng() % 100) < wrong;
    out += "{\"id\":\"r" + n + "\",\"user_input\":\"What is the capital of region " + n +
           "?\",\"response\":\"The capital of region " + n + " is " +
           (bad ? kTowns[(i + 3) % 6] : town) + ".\",\"retrieved_contexts\":[\"Region " + n +
           " has its capital in " + town + ", a market town.\",\"Region " + n +
           " borders the sea.\"]}\n";
  }
  return out;
}

json LastJson(const std::string& out) { return json::parse(out.substr(out.find('{'))); }

TEST(SequentialTest, ARegressionIsDecidedLikeTheFullRunWithHalfTheRowsJudged) {
  TempDir dir;
  const std::string d = dir.path();
  const std::string base = dir.Write("base.jsonl", Rows(0)),
                    cand = dir.Write("cand.jsonl", Rows(10));
  ASSERT_EQ(RunTala("eval " + base + " -m faithfulness -q -o " + d + "/base_r.jsonl").exit_code, 0);
  ASSERT_EQ(RunTala("eval " + cand + " -m faithfulness -q -o " + d + "/full.jsonl").exit_code, 0);
  auto full = RunTala("gate " + d + "/full.jsonl --baseline " + d +
                      "/base_r.jsonl --max-drop faithfulness=0.02");
  EXPECT_EQ(full.exit_code, 1) << full.out;  // the full run fails the gate
  auto seq = RunTala("eval " + cand + " -m faithfulness --json -o " + d +
                     "/seq.jsonl --sequential --max-drop faithfulness=0.02 --baseline " + d +
                     "/base_r.jsonl 2>/dev/null");
  ASSERT_EQ(seq.exit_code, 0) << seq.out;
  const json s = LastJson(seq.out)["sequential"];
  EXPECT_TRUE(s["decided"]);
  EXPECT_FALSE(s["gates"][0]["pass"]);
  EXPECT_LE(s["judged"].get<int>(), 200) << s.dump();  // at least half the judge's work saved
  EXPECT_EQ(s["judged"].get<int>() + s["not_judged"].get<int>(), 400);
  // The rows left are listed, and the results file holds exactly the others.
  std::set<std::string> left, scored;
  std::ifstream listed(s["not_judged_file"].get<std::string>());
  for (std::string line; std::getline(listed, line);) left.insert(json::parse(line)["id"]);
  std::ifstream results(d + "/seq.jsonl");
  for (std::string line; std::getline(results, line);) {
    json row = json::parse(line);
    if (row.contains("id")) scored.insert(row["id"]);
  }
  EXPECT_EQ(left.size(), s["not_judged"].get<size_t>());
  EXPECT_EQ(scored.size(), s["judged"].get<size_t>());
  for (const std::string& id : left) EXPECT_EQ(scored.count(id), 0u) << id;
  // tala gate on the rows judged decides the same.
  auto gated = RunTala("gate " + d + "/seq.jsonl --baseline " + d +
                       "/base_r.jsonl --max-drop faithfulness=0.02");
  EXPECT_EQ(gated.exit_code, 1) << gated.out;
  // The same seed, the same rows.
  auto again = RunTala("eval " + cand + " -m faithfulness --json -o " + d +
                       "/seq2.jsonl --sequential --max-drop faithfulness=0.02 --baseline " + d +
                       "/base_r.jsonl 2>/dev/null");
  EXPECT_EQ(LastJson(again.out)["sequential"]["judged"], s["judged"]);
}

TEST(SequentialTest, NothingChangedPassesEarlyAndAnUndecidableRunJudgesEveryRowAndSaysSo) {
  TempDir dir;
  const std::string d = dir.path();
  const std::string base = dir.Write("base.jsonl", Rows(0));
  ASSERT_EQ(RunTala("eval " + base + " -m faithfulness -q -o " + d + "/base_r.jsonl").exit_code, 0);
  auto same = RunTala("eval " + base + " -m faithfulness --json -o " + d +
                      "/same.jsonl --sequential --max-drop faithfulness=0.05 --baseline " + d +
                      "/base_r.jsonl 2>/dev/null");
  const json s = LastJson(same.out)["sequential"];
  EXPECT_TRUE(s["decided"]);
  EXPECT_TRUE(s["gates"][0]["pass"]);
  EXPECT_LT(s["judged"].get<int>(), 200) << s.dump();
  // A gate at the mean itself cannot be decided: every row is judged, and the summary says so.
  const std::string cand = dir.Write("cand.jsonl", Rows(10));
  auto open = RunTala("eval " + cand + " -m faithfulness --no-progress -o " + d +
                      "/open.jsonl --sequential --min faithfulness=0.92 2>&1");
  EXPECT_EQ(open.exit_code, 0) << open.out;
  EXPECT_NE(open.out.find("sequential: every one of the 400 rows judged"), std::string::npos)
      << open.out;
  EXPECT_NE(open.out.find("faithfulness >= 0.92 undecided"), std::string::npos) << open.out;
}

TEST(SequentialTest, FlagsThatCannotWorkAreRefusedBeforeAnyJudging) {
  TempDir dir;
  const std::string data = dir.Write("d.jsonl", Rows(0));
  auto r = RunTala("eval " + data + " -m faithfulness --min faithfulness=0.7 -o " + dir.path() +
                   "/r.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--sequential stops judging"), std::string::npos) << r.out;
  r = RunTala("eval " + data + " -m faithfulness --sequential -o " + dir.path() + "/r.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("needs a gate to decide"), std::string::npos) << r.out;
  r = RunTala("eval " + data + " -m faithfulness --sequential --min context_recall=0.5 -o " +
              dir.path() + "/r.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("not among the metrics scored"), std::string::npos) << r.out;
  const std::string csv =
      dir.Write("d.csv", "user_input,response,retrieved_contexts\nq,a,\"[\"\"a\"\"]\"\n");
  r = RunTala("eval " + csv + " -m faithfulness --sequential --min faithfulness=0.5 -o " +
              dir.path() + "/r.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--sequential reads JSON Lines"), std::string::npos) << r.out;
  EXPECT_FALSE(std::ifstream(dir.path() + "/r.jsonl").good());
}

TEST(SequentialTest, CiSequentialStopsOnceItsGatesAreDecided) {
  TempDir dir;
  const std::string src = TALA_SOURCE_DIR;
  auto r =
      RunTala("ci " + src + "/examples/data/golden_faults.jsonl --target 'exec:/usr/bin/python3 " +
              src + "/examples/rag_app/rag_app.py jsonl' --metrics faithfulness --min " +
              "faithfulness=0.3 --sequential -q --out-dir " + dir.path() + "/ci 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("PASS  faithfulness >= 0.3000"), std::string::npos) << r.out;
  std::ifstream summary(dir.path() + "/ci/summary.md");
  const std::string md((std::istreambuf_iterator<char>(summary)), std::istreambuf_iterator<char>());
  EXPECT_NE(md.find("sequential: decided after judging"), std::string::npos) << md;
}

}  // namespace
}  // namespace tala
