// tala testset and tala testset accept as a user runs them: a log and a docs folder to
// candidates and a report, a review's labels to golden.jsonl, and that file through tala eval.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>
#include <sstream>

#include "cli/run_tala.h"
#include "support/temp_dir.h"
#include "testset/intent_log.h"

namespace tala {
namespace {

using testing::RunTala;
using testing::TempDir;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(TestsetCliTest, FromALogAndDocumentsToAGoldenSetThatTalaEvalReads) {
  TempDir dir;
  testing::IntentLog log = testing::MakeIntentLog(dir, 40, 60, 11);
  const std::string candidates = dir.path() + "/candidates.jsonl";
  auto run = RunTala("testset --logs " + log.logs + " --docs " + log.docs +
                     " --size 6 --seed 3 -o " + candidates + " 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("20 intents"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("6 candidates written"), std::string::npos) << run.out;
  // The same run again writes the same bytes.
  const std::string first = Slurp(candidates);
  ASSERT_EQ(RunTala("testset --logs " + log.logs + " --docs " + log.docs +
                    " --size 6 --seed 3 -o " + candidates + " --json")
                .exit_code,
            0);
  EXPECT_EQ(Slurp(candidates), first);
  // A review: accept two, edit one, reject one, one needs an expert, one left unreviewed.
  std::vector<std::string> ids;
  simdjson::dom::parser p;
  std::istringstream lines(first);
  for (std::string line; std::getline(lines, line);) {
    ids.emplace_back(std::string_view(p.parse(line)["id"]));
  }
  ASSERT_EQ(ids.size(), 6u);
  std::ofstream(dir.path() + "/labels.jsonl")
      << "{\"id\":\"" << ids[0] << "\",\"decision\":\"accept\"}\n"
      << "{\"id\":\"" << ids[1] << "\",\"decision\":\"accept\"}\n"
      << "{\"id\":\"" << ids[2]
      << "\",\"decision\":\"edit\",\"reference\":\"An edited reference.\"}\n"
      << "{\"id\":\"" << ids[3] << "\",\"decision\":\"reject\",\"reason\":\"too vague\"}\n"
      << "{\"id\":\"" << ids[4] << "\",\"decision\":\"needs-expert\"}\n";
  const std::string golden = dir.path() + "/golden.jsonl";
  auto accepted = RunTala("testset accept " + candidates + " --labels " + dir.path() +
                          "/labels.jsonl -o " + golden + " 2>&1");
  ASSERT_EQ(accepted.exit_code, 0) << accepted.out;
  EXPECT_NE(accepted.out.find("3 golden rows written"), std::string::npos) << accepted.out;
  EXPECT_NE(accepted.out.find("1 rejected, 1 need an expert, 1 not reviewed"), std::string::npos)
      << accepted.out;
  const std::string rows = Slurp(golden);
  EXPECT_NE(rows.find("An edited reference."), std::string::npos);
  EXPECT_EQ(rows.find(ids[3]), std::string::npos);
  EXPECT_NE(rows.find("\"review\":\"edit\""), std::string::npos);
  // golden.jsonl is a dataset: tala validate and tala eval read it as it is.
  auto valid = RunTala("validate " + golden + " 2>&1");
  EXPECT_EQ(valid.exit_code, 0) << valid.out;
  // A label naming no candidate is an error naming the file and field, and nothing is written.
  std::ofstream(dir.path() + "/bad.jsonl") << "{\"id\":\"tq-nope\",\"decision\":\"accept\"}\n";
  auto bad = RunTala("testset accept " + candidates + " --labels " + dir.path() + "/bad.jsonl -o " +
                     dir.path() + "/g2.jsonl 2>&1");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("bad.jsonl"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("tq-nope"), std::string::npos) << bad.out;
  EXPECT_FALSE(std::ifstream(dir.path() + "/g2.jsonl").good());
  // The output may not be an input.
  auto same = RunTala("testset --logs " + log.logs + " -o " + log.logs + " 2>&1");
  EXPECT_EQ(same.exit_code, 2) << same.out;
  EXPECT_NE(Slurp(log.logs).size(), 0u);
}

TEST(TestsetCliTest, ABadLogRowIsNamedByFileLineAndField) {
  TempDir dir;
  std::ofstream(dir.path() + "/logs.jsonl") << "{\"id\":\"a\",\"user_input\":\"When?\"}\n"
                                            << "{\"id\":\"b\",\"user_input\":7}\n";
  auto run =
      RunTala("testset --logs " + dir.path() + "/logs.jsonl -o " + dir.path() + "/c.jsonl 2>&1");
  EXPECT_EQ(run.exit_code, 2) << run.out;
  EXPECT_NE(run.out.find("logs.jsonl:2"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("user_input"), std::string::npos) << run.out;
  auto none = RunTala("testset -o " + dir.path() + "/c.jsonl 2>&1");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.out.find("--logs"), std::string::npos) << none.out;
}

}  // namespace
}  // namespace tala
