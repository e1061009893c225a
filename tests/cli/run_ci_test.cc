// End-to-end: `tala run` and `tala ci` against the example RAG app (examples/rag_app), over
// exec and HTTP, a kill -9 in the middle of a run, and a regression caught by `tala ci`.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/child_process.h"
#include "cli/json_lines.h"
#include "cli/run_tala.h"
#include "support/temp_dir.h"

namespace tala {
namespace {

using nlohmann::json;
using tala::testing::RunTala;
using tala::testing::TempDir;

const std::string kSource = TALA_SOURCE_DIR;
const std::string kGolden = kSource + "/examples/data/golden.jsonl";
const std::string kApp = "/usr/bin/python3 " + kSource + "/examples/rag_app/rag_app.py";

std::vector<json> Rows(const std::string& path) { return testing::ReadJsonLines(path); }

std::vector<std::string> GoldenIds() {
  std::vector<std::string> ids;
  for (const json& row : Rows(kGolden)) ids.push_back(row["id"]);
  return ids;
}

void ExpectEveryGoldenRowOnceAnswered(const std::string& path) {
  std::vector<std::string> ids;
  for (const json& row : Rows(path)) {
    ids.push_back(row["id"]);
    EXPECT_TRUE(row["response"].is_string()) << row.dump();
    EXPECT_FALSE(row["retrieved_contexts"].empty()) << row.dump();
    EXPECT_TRUE(row.contains("reference")) << row.dump();
  }
  EXPECT_EQ(ids, GoldenIds());
}

TEST(RunCommandTest, TheExampleAppOverExecAndOverHttpAnswersEveryGoldenRowOnce) {
  TempDir dir;
  auto exec = RunTala("run " + kGolden + " --target 'exec:" + kApp + " jsonl' --out " + dir.path() +
                      "/exec.jsonl -q 2>&1");
  ASSERT_EQ(exec.exit_code, 0) << exec.out;
  EXPECT_NE(exec.out.find("rows: 22 read, 22 answered, 0 failed"), std::string::npos) << exec.out;
  ExpectEveryGoldenRowOnceAnswered(dir.path() + "/exec.jsonl");
  // The same app as an HTTP server on a free port, stopped when the shell ends.
  std::string script = kApp + " serve --port 0 > " + dir.path() + "/port & app=$!; " +
                       "for i in $(seq 100); do grep -q listening " + dir.path() +
                       "/port && break; sleep 0.05; done; " + "url=$(sed 's/.*listening on //' " +
                       dir.path() + "/port); " + TALA_BINARY_DIR + "/tala run " + kGolden +
                       " --target \"$url\" --out " + dir.path() +
                       "/http.jsonl -q; rc=$?; kill $app; exit $rc";
  int rc = std::system(("bash " + dir.Write("http.sh", script)).c_str());
  ASSERT_EQ(WEXITSTATUS(rc), 0);
  ExpectEveryGoldenRowOnceAnswered(dir.path() + "/http.jsonl");
  auto a = Rows(dir.path() + "/exec.jsonl"), b = Rows(dir.path() + "/http.jsonl");
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i]["response"], b[i]["response"]);
    EXPECT_EQ(a[i]["retrieved_context_ids"], b[i]["retrieved_context_ids"]);
  }
}

// A golden conversation (issue 54) is played turn by turn: each of the user's messages is one
// call carrying the conversation so far, the answers come back into the transcript with their
// passages and the turn's reference, over exec and HTTP alike; a cache serves every turn again.
TEST(RunCommandTest, AGoldenConversationIsPlayedTurnByTurn) {
  TempDir dir;
  const std::string golden = kSource + "/examples/data/golden_conversations.jsonl";
  auto run = RunTala("run " + golden + " --target 'exec:" + kApp + " jsonl' --target-cache " +
                     dir.path() + "/cache.sqlite --out " + dir.path() + "/exec.jsonl -q 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("rows: 3 read, 3 answered, 0 failed"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("calls: 8 "), std::string::npos) << run.out;  // 3 + 3 + 2 turns
  auto rows = Rows(dir.path() + "/exec.jsonl");
  ASSERT_EQ(rows.size(), 3u);
  const json& fares = rows[0]["user_input"];
  ASSERT_EQ(fares.size(), 6u);
  EXPECT_EQ(fares[1]["type"], "ai");
  EXPECT_FALSE(fares[1]["content"].get<std::string>().empty());
  EXPECT_FALSE(fares[1]["retrieved_contexts"].empty());
  EXPECT_EQ(fares[1]["reference"], "A single ride costs 2.40 euros.");
  EXPECT_EQ(rows[0]["response"], fares[5]["content"]);
  // A script without placeholders: each message of the user is a turn.
  EXPECT_EQ(rows[1]["user_input"].size(), 6u);
  // Played again from the cache: the same transcripts, no call.
  auto again = RunTala("run " + golden + " --target 'exec:" + kApp + " jsonl' --target-cache " +
                       dir.path() + "/cache.sqlite --out " + dir.path() + "/again.jsonl -q 2>&1");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_NE(again.out.find("calls: 0 (0 retries, 8 cache hits"), std::string::npos) << again.out;
  auto transcripts = [](const std::vector<json>& r) {
    std::vector<json> out;
    for (const json& row : r) out.push_back(row["user_input"]);
    return out;
  };
  EXPECT_EQ(transcripts(Rows(dir.path() + "/again.jsonl")), transcripts(rows));
  // The same over HTTP, where the default body carries the conversation as "messages".
  std::string script = kApp + " serve --port 0 > " + dir.path() + "/port & app=$!; " +
                       "for i in $(seq 100); do grep -q listening " + dir.path() +
                       "/port && break; sleep 0.05; done; " + "url=$(sed 's/.*listening on //' " +
                       dir.path() + "/port); " + TALA_BINARY_DIR + "/tala run " + golden +
                       " --target \"$url\" --out " + dir.path() +
                       "/http.jsonl -q; rc=$?; kill $app; exit $rc";
  int rc = std::system(("bash " + dir.Write("http.sh", script)).c_str());
  ASSERT_EQ(WEXITSTATUS(rc), 0);
  EXPECT_EQ(transcripts(Rows(dir.path() + "/http.jsonl")), transcripts(rows));
  // Each turn's request holds what was said before it: an app that answers with the number of
  // messages it got says 1, 3, 5.
  const std::string counter = dir.Write(
      "count.py",
      "import json, sys\n"
      "for line in sys.stdin:\n"
      "    r = json.loads(line)\n"
      "    print(json.dumps({'id': r['id'], 'answer': 'messages %d' % len(r['messages']), "
      "'contexts': []}), flush=True)\n");
  auto counted = RunTala("run " + golden + " --target 'exec:/usr/bin/python3 " + counter +
                         "' --out " + dir.path() + "/count.jsonl -q 2>&1");
  ASSERT_EQ(counted.exit_code, 0) << counted.out;
  const json turns = Rows(dir.path() + "/count.jsonl")[0]["user_input"];
  EXPECT_EQ(turns[1]["content"], "messages 1");
  EXPECT_EQ(turns[3]["content"], "messages 3");
  EXPECT_EQ(turns[5]["content"], "messages 5");
  // Among conversations, a single question is played as a conversation of one turn (tala
  // testset's golden sets mix them).
  const std::string mixed =
      dir.Write("mixed.jsonl",
                "{\"id\":1,\"user_input\":[{\"type\":\"human\",\"content\":\"hi\"}]}\n"
                "{\"id\":2,\"user_input\":\"How much is a ticket?\",\"reference\":\"2.40\"}\n");
  auto played = RunTala("run " + mixed + " --target 'exec:" + kApp + " jsonl' --out " + dir.path() +
                        "/m.jsonl 2>&1");
  ASSERT_EQ(played.exit_code, 0) << played.out;
  const json single = Rows(dir.path() + "/m.jsonl")[1];
  ASSERT_EQ(single["user_input"].size(), 2u) << single.dump();
  EXPECT_EQ(single["user_input"][0]["content"], "How much is a ticket?");
  EXPECT_EQ(single["user_input"][1]["type"], "ai");
  EXPECT_EQ(single["reference"], "2.40");
  // A row that is neither is named.
  const std::string bad =
      dir.Write("bad.jsonl",
                "{\"id\":1,\"user_input\":[{\"type\":\"human\",\"content\":\"hi\"}]}\n"
                "{\"id\":2,\"user_input\":[{\"type\":\"tool\",\"content\":\"x\"}]}\n");
  auto refused = RunTala("run " + bad + " --target 'exec:" + kApp + " jsonl' --out " + dir.path() +
                         "/b.jsonl 2>&1");
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_NE(refused.out.find("bad.jsonl:2: field \"user_input\""), std::string::npos)
      << refused.out;
}

// A simulated user (issue 54): 20 scenarios against the example app; every conversation ends
// (success, limit or give-up), the same scenarios give the same transcripts, and tala ci gates
// on the conversations turn by turn.
TEST(RunCommandTest, ASimulatedUserPlaysEachScenarioToAnEnd) {
  TempDir dir;
  const std::string scenarios = kSource + "/examples/data/scenarios.jsonl";
  const std::string target = " --target 'exec:" + kApp + " jsonl'";
  auto run =
      RunTala("run --simulate " + scenarios + target + " -o " + dir.path() + "/a.jsonl -q 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("rows: 20 read, 20 answered, 0 failed"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("simulated conversations ended: "), std::string::npos) << run.out;
  auto rows = Rows(dir.path() + "/a.jsonl");
  ASSERT_EQ(rows.size(), 20u);
  std::map<std::string, int> ends;
  for (const json& row : rows) {
    const std::string ended = row["simulation"]["ended"];
    ++ends[ended];
    EXPECT_TRUE(ended == "success" || ended == "limit" || ended == "give_up") << row.dump();
    const json& messages = row["user_input"];
    ASSERT_GE(messages.size(), 2u);
    EXPECT_EQ(messages.size(), 2 * row["simulation"]["turns"].get<size_t>());
    EXPECT_FALSE(messages[1]["retrieved_contexts"].empty());
  }
  EXPECT_GT(ends["success"], 0);
  EXPECT_GT(ends["give_up"], 0);  // questions the knowledge base cannot answer
  // Answered from the facts it holds: the student says so when the answer is not about students.
  for (const json& row : rows) {
    if (row["id"] != "sim-student") continue;
    EXPECT_EQ(row["user_input"][2]["content"],
              "I am a student with a valid card. How much is the monthly pass for me?");
  }
  // The same scenarios, the same conversations.
  auto again =
      RunTala("run --simulate " + scenarios + target + " -o " + dir.path() + "/b.jsonl -q 2>&1");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  auto b = Rows(dir.path() + "/b.jsonl");
  ASSERT_EQ(b.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(b[i]["user_input"], rows[i]["user_input"]);
    EXPECT_EQ(b[i]["simulation"], rows[i]["simulation"]);
  }
  // tala ci plays them and gates on the turns.
  auto ci = RunTala("ci --simulate " + scenarios + target +
                    " --min turn_faithfulness=0.7 -q --out-dir " + dir.path() + "/ci 2>&1");
  EXPECT_EQ(ci.exit_code, 0) << ci.out;
  EXPECT_NE(ci.out.find("PASS  turn_faithfulness >= 0.7000"), std::string::npos) << ci.out;
  // A scenario without a goal, or GOLDEN beside --simulate: usage errors naming what is wrong.
  const std::string bad = dir.Write("bad.jsonl", "{\"id\": \"x\", \"facts\": [\"I am 9\"]}\n");
  auto no_goal = RunTala("run --simulate " + bad + target + " -o " + dir.path() + "/c.jsonl 2>&1");
  EXPECT_EQ(no_goal.exit_code, 2) << no_goal.out;
  EXPECT_NE(no_goal.out.find("bad.jsonl:1: field \"goal\""), std::string::npos) << no_goal.out;
  auto both = RunTala("run " + kGolden + " --simulate " + scenarios + target + " -o " + dir.path() +
                      "/d.jsonl 2>&1");
  EXPECT_EQ(both.exit_code, 2) << both.out;
  EXPECT_NE(both.out.find("not both"), std::string::npos) << both.out;
}

// The user played by an LLM judge (the mock, which plays one deterministically): one call
// after each answer at most, every conversation ends, and the cache gives the same
// conversations again without a call.
TEST(RunCommandTest, AnLlmJudgePlaysTheSimulatedUser) {
  TempDir dir;
  std::string url;
  auto mock = tala::testing::StartMockJudge({}, &url);
  ::setenv("OPENAI_API_KEY", "test-key", 1);
  const std::string command = "run --simulate " + kSource +
                              "/examples/data/scenarios.jsonl --target 'exec:" + kApp +
                              " jsonl' --user-judge openai:mock-model --user-base-url " + url +
                              " --user-cache " + dir.path() + "/user.sqlite -q -o " + dir.path();
  auto run = RunTala(command + "/a.jsonl 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  auto rows = Rows(dir.path() + "/a.jsonl");
  ASSERT_EQ(rows.size(), 20u);
  int64_t turns = 0;
  for (const json& row : rows) {
    const std::string ended = row["simulation"]["ended"];
    EXPECT_TRUE(ended == "success" || ended == "limit" || ended == "give_up") << row.dump();
    turns += row["simulation"]["turns"].get<int64_t>();
  }
  // "the user judge: N calls": at most one per simulated turn (none after the opening's answer
  // of a conversation that ends there, none after a closing message's answer).
  const size_t at = run.out.find("the user judge: ");
  ASSERT_NE(at, std::string::npos) << run.out;
  const int64_t calls = std::stoll(run.out.substr(at + 16));
  EXPECT_GT(calls, 0);
  EXPECT_LE(calls, turns);
  auto again = RunTala(command + "/b.jsonl 2>&1");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_NE(again.out.find("(" + std::to_string(calls) + " cache hits)"), std::string::npos)
      << again.out;
  auto b = Rows(dir.path() + "/b.jsonl");
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(b[i]["user_input"], rows[i]["user_input"]);
  // --dry-run: the calls at most (every scenario to its max_turns), the user judge's tokens
  // estimated; nothing called (the cache would have answered: no hit is counted), nothing
  // written.
  auto planned = RunTala(command + "/c.jsonl --dry-run 2>&1");
  ASSERT_EQ(planned.exit_code, 0) << planned.out;
  int64_t most = 0;
  for (const json& scenario : Rows(kSource + "/examples/data/scenarios.jsonl")) {
    most += scenario.value("max_turns", 6);
  }
  EXPECT_NE(planned.out.find("the target: " + std::to_string(most) + " calls at most"),
            std::string::npos)
      << planned.out;
  EXPECT_NE(planned.out.find("the user judge: " + std::to_string(most) + " calls at most, about "),
            std::string::npos)
      << planned.out;
  EXPECT_GE(most, turns);
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/c.jsonl"));
}

TEST(RunCommandTest, KillNineThenResumeWritesEveryGoldenRowExactlyOnce) {
  TempDir dir;
  std::string out = dir.path() + "/gen.jsonl";
  // A slow app, one call at a time; tala is killed once a few rows are on disk.
  std::string script = std::string(TALA_BINARY_DIR) + "/tala run " + kGolden +
                       " --target 'exec:/usr/bin/python3 " + kSource +
                       "/tests/targets/fake_target.py --sleep-ms 40' --max-in-flight 1 -q --out " +
                       out + " & pid=$!; " + "for i in $(seq 400); do [ \"$(wc -l < " + out +
                       " 2>/dev/null || echo 0)\" -ge 4 ] && break; sleep 0.01; done; " +
                       "kill -9 $pid; wait $pid; exit 0";
  ASSERT_EQ(std::system(("bash " + dir.Write("kill.sh", script)).c_str()), 0);
  size_t before = Rows(out).size();
  EXPECT_GE(before, 4u);
  EXPECT_LT(before, 22u);
  auto resumed = RunTala("run " + kGolden + " --target 'exec:/usr/bin/python3 " + kSource +
                         "/tests/targets/fake_target.py' --resume -q --out " + out + " 2>&1");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out;
  EXPECT_NE(resumed.out.find("kept from an earlier run"), std::string::npos) << resumed.out;
  std::multiset<std::string> ids;
  for (const json& row : Rows(out)) ids.insert(row["id"].get<std::string>());
  std::vector<std::string> golden = GoldenIds();
  EXPECT_EQ(ids, std::multiset<std::string>(golden.begin(), golden.end()));
}

TEST(RunCommandTest, CtrlCStopsCleanlyWithExit130KeepingFinishedRows) {
  TempDir dir;
  std::string out = dir.path() + "/gen.jsonl";
  std::string script =
      std::string(TALA_BINARY_DIR) + "/tala run " + kGolden + " --target 'exec:/usr/bin/python3 " +
      kSource + "/tests/targets/fake_target.py --sleep-ms 40' --max-in-flight 1 -q --out " + out +
      " 2> " + dir.path() + "/err & pid=$!; " + "for i in $(seq 400); do [ \"$(wc -l < " + out +
      " 2>/dev/null || echo 0)\" -ge 3 ] && break; sleep 0.01; done; " +
      "kill -INT $pid; wait $pid; echo $? > " + dir.path() + "/rc";
  ASSERT_EQ(std::system(("bash " + dir.Write("int.sh", script)).c_str()), 0);
  EXPECT_EQ(dir.Read("rc"), "130\n") << dir.Read("err");
  EXPECT_NE(dir.Read("err").find("--resume calls for the rest"), std::string::npos)
      << dir.Read("err");
  size_t kept = Rows(out).size();
  EXPECT_GE(kept, 3u);
  EXPECT_LT(kept, 22u);
  for (const json& row : Rows(out)) EXPECT_TRUE(row.contains("response")) << row.dump();
}

TEST(RunCommandTest, UsageErrorsExit2WithTheReason) {
  auto none = RunTala("run " + kGolden + " --out /tmp/x.jsonl 2>&1");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.out.find("give --target"), std::string::npos) << none.out;
  auto bad = RunTala("run " + kGolden + " --target ftp://x --out /tmp/x.jsonl 2>&1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find("--target must be"), std::string::npos) << bad.out;
}

TEST(CiCommandTest, TheExampleAppPassesAndItsBrokenVariantIsCaughtAgainstIt) {
  TempDir dir;
  std::string gates =
      " --metrics faithfulness,context_precision,context_recall --min "
      "faithfulness=0.7 --max-drop faithfulness=0.05 -q";
  auto good = RunTala("ci " + kGolden + " --target 'exec:" + kApp + " jsonl' --out-dir " +
                      dir.path() + "/good --min faithfulness=0.7 -q 2>&1");
  ASSERT_EQ(good.exit_code, 0) << good.out;
  for (const char* f :
       {"dataset.jsonl", "results.jsonl", "summary.md", "junit.xml", "report.html"}) {
    EXPECT_TRUE(std::ifstream(dir.path() + "/good/" + f).good()) << f;
  }
  auto broken = RunTala(
      "ci " + kGolden + " --target 'exec:" + kApp + " jsonl --broken claim' --baseline " +
      dir.path() + "/good/results.jsonl --out-dir " + dir.path() + "/broken" + gates + " 2>&1");
  EXPECT_EQ(broken.exit_code, 1) << broken.out;
  std::string summary = dir.Read("broken/summary.md");
  EXPECT_NE(summary.find("**FAILED**"), std::string::npos) << summary;
  EXPECT_NE(summary.find("**FAIL** faithfulness drop <= 0.0500"), std::string::npos) << summary;
  EXPECT_NE(summary.find("worst rows for faithfulness:\n  - `demo-"), std::string::npos) << summary;
  EXPECT_NE(dir.Read("broken/junit.xml").find("<failure"), std::string::npos);
}

TEST(CiCommandTest, TalaTomlTargetAndCiTablesConfigureTheStep) {
  TempDir dir;
  std::string config = dir.Write("tala.toml",
                                 "[target]\n"
                                 "target = \"exec:" +
                                     kApp +
                                     " jsonl\"\n"
                                     "max_in_flight = 2\n"
                                     "[ci]\n"
                                     "metrics = \"faithfulness\"\n"
                                     "min = { faithfulness = 0.99 }\n"
                                     "out_dir = \"" +
                                     dir.path() +
                                     "/out\"\n"
                                     "summary = \"" +
                                     dir.path() + "/job-summary.md\"\n");
  auto r = RunTala("ci " + kGolden + " --config " + config + " -q 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(dir.Read("job-summary.md").find("PASS faithfulness >= 0.9900"), std::string::npos);
  EXPECT_TRUE(std::ifstream(dir.path() + "/out/results.jsonl").good());
  std::string bad = dir.Write("bad.toml", "[target]\ntarget = \"exec:x\"\nretries = 3\n");
  auto b = RunTala("ci " + kGolden + " --config " + bad + " 2>&1");
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.out.find(bad + ":3: target.retries: unknown key"), std::string::npos) << b.out;
}

}  // namespace
}  // namespace tala
