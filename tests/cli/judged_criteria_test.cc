// The metrics' own judge questions end to end (issue 23): `tala eval` with an LLM judge, the
// built binary against the tala-mock-judge program on 127.0.0.1. Every prompt's reply is parsed
// strictly, the calls are counted, faults are recovered, conversations come from JSON Lines and
// CSV alike, and the offline judge says such metrics need an LLM judge.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/child_process.h"
#include "cli/run_tala.h"
#include "support/temp_dir.h"

namespace tala::testing {
namespace {

using nlohmann::json;

// Rows of the results file (not the manifest or run records).
std::vector<json> Rows(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("id")) out.push_back(j);
  }
  return out;
}

std::string SingleTurnRows(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    json row = {
        {"id", "s" + std::to_string(i)},
        {"user_input", "When was bridge " + std::to_string(i) + " opened?"},
        {"response", "Bridge " + std::to_string(i) + " opened in 1932 after long years of work."},
        {"reference", "Bridge " + std::to_string(i) + " opened in 1932."},
        {"retrieved_contexts",
         {"Bridge " + std::to_string(i) + " opened in 1932 after years of work.", "Cats nap."}},
        {"reference_contexts",
         {"Bridge " + std::to_string(i) +
          " opened in 1932. It crosses the river downtown. It was painted red in 1990."}},
        {"rubrics", {{"score1_description", "wrong"}, {"score2_description", "right"}}},
    };
    out += row.dump() + "\n";
  }
  return out;
}

const json kConversation =
    json::array({{{"type", "human"}, {"content", "What are your opening hours?"}},
                 {{"type", "ai"}, {"content", "9 to 5 on weekdays."}},
                 {{"type", "human"}, {"content", "Who will win the election?"}},
                 {{"type", "ai"}, {"content", "I can only help with questions about the store."}},
                 {{"type", "human"}, {"content", "Can I return shoes?"}},
                 {{"type", "ai"},
                  {"content", ""},
                  {"tool_calls", {{{"name", "lookup_policy"}, {"args", {{"topic", "returns"}}}}}}},
                 {{"type", "tool"}, {"content", "returns accepted within 30 days"}},
                 {{"type", "ai"}, {"content", "Yes, shoes can be returned within 30 days."}}});

class JudgedCriteriaTest : public ::testing::Test {
 protected:
  void StartMock(std::vector<std::string> extra = {}) {
    mock_ = StartMockJudge(std::move(extra), &url_);
    ASSERT_EQ(url_.rfind("http://127.0.0.1:", 0), 0u) << url_;
  }
  CommandOutput Eval(const std::string& data, const std::string& metrics,
                     const std::string& extra = "--cache off") {
    // --overwrite: each test scores into the one results file again.
    return RunTala("eval " + data + " --judge openai:mock-model --base-url " + url_ + " -o " +
                   dir_.path() +
                   "/r.jsonl --overwrite --no-progress --max-in-flight 4 --metrics '" + metrics +
                   "' " + extra + " 2>&1");
  }
  TempDir dir_;
  std::unique_ptr<ChildProcess> mock_;
  std::string url_;
};

constexpr const char* kCriteria =
    "aspect_critic:name=grounded,definition=\"Is it backed by the contexts, in full?\","
    "strictness=3,simple_criteria:name=clarity,definition=How clear it is,rubrics_score,"
    "instance_rubrics,answer_accuracy,context_relevance,response_groundedness,"
    "summarization_score,g_eval:name=coherence,criteria=Coherence";

TEST_F(JudgedCriteriaTest, EveryCriterionIsScoredWithTheCallsDocumented) {
  StartMock();
  std::string data = dir_.Write("d.jsonl", SingleTurnRows(3));
  CommandOutput r = Eval(data, kCriteria);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // Per row: one criteria call (strictness 3 as n=3 choices), two calls per NVIDIA rating (6),
  // the summary's two calls and G-Eval's two: 11.
  EXPECT_NE(r.out.find("requests 33 (retries 0, repairs 0), failed calls 0"), std::string::npos)
      << r.out;
  std::vector<json> rows = Rows(dir_.Read("r.jsonl"));
  ASSERT_EQ(rows.size(), 3u);
  for (const json& row : rows) {
    for (const char* key :
         {"aspect_critic(name=grounded,strictness=3)", "simple_criteria(name=clarity)",
          "rubrics_score", "instance_rubrics", "answer_accuracy", "context_relevance",
          "response_groundedness", "summarization_score", "g_eval(name=coherence)"}) {
      ASSERT_TRUE(row["scores"].contains(key)) << key << " " << row.dump();
      EXPECT_TRUE(row["scores"][key].is_number()) << key << ": " << row["reasons"].dump();
    }
    // The mock answers by word overlap: the response repeats the first context word for word.
    EXPECT_EQ(row["scores"]["aspect_critic(name=grounded,strictness=3)"], 1.0);
    EXPECT_EQ(row["scores"]["response_groundedness"], 1.0);
    EXPECT_EQ(row["scores"]["instance_rubrics"], 2.0);
    const json& answers = row["verdicts"]["answers"];
    EXPECT_EQ(answers["aspect_critic(name=grounded)"]["values"].size(), 3u) << answers.dump();
    EXPECT_EQ(answers["summarization_score"]["items"].size(), 3u) << answers.dump();
    EXPECT_EQ(answers["answer_accuracy"]["values"].size(), 2u);
    // The mock weighs each score token 0.6 / 0.3 / 0.1 with the next one up and down.
    const json& g = answers["g_eval(name=coherence)"];
    ASSERT_TRUE(g.contains("weighted")) << g.dump();
    EXPECT_NEAR(g["weighted"].get<double>(), g["values"][0].get<double>() + 0.2, 1e-9) << g.dump();
    EXPECT_NE(row["reasons"]["g_eval(name=coherence)"].get<std::string>().find("weighted"),
              std::string::npos);
  }
  // The answers a results row holds are in the replay format: replayed, they give the same
  // numbers.
  std::string replay;
  std::istringstream source(SingleTurnRows(3));
  for (size_t i = 0; i < rows.size(); ++i) {
    std::string line;
    std::getline(source, line);
    json again = json::parse(line);
    again["verdicts"] = {{"answers", rows[i]["verdicts"]["answers"]}};
    replay += again.dump() + "\n";
  }
  std::string replay_path = dir_.Write("replay.jsonl", replay);
  CommandOutput replayed = RunTala("eval " + replay_path + " --judge replay --no-progress -o " +
                                   dir_.path() + "/again.jsonl --metrics '" + kCriteria + "' 2>&1");
  ASSERT_EQ(replayed.exit_code, 0) << replayed.out;
  std::vector<json> again = Rows(dir_.Read("again.jsonl"));
  ASSERT_EQ(again.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(again[i]["scores"], rows[i]["scores"]);
}

TEST_F(JudgedCriteriaTest, AServerWithoutNIsAskedEachRoundInACallOfItsOwn) {
  StartMock({"--max-choices", "1"});
  std::string data = dir_.Write("d.jsonl", SingleTurnRows(2));
  CommandOutput r = Eval(data, "aspect_critic:name=grounded,definition=x,strictness=5");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("requests 10 (retries 0, repairs 0)"), std::string::npos) << r.out;
  for (const json& row : Rows(dir_.Read("r.jsonl"))) {
    EXPECT_EQ(row["verdicts"]["answers"]["aspect_critic(name=grounded)"]["values"].size(), 5u);
  }
}

TEST_F(JudgedCriteriaTest, ConversationsFromJsonLinesAndCsvScoreAlike) {
  StartMock();
  json row = {
      {"id", "c1"},
      {"user_input", kConversation},
      {"reference", "The user learns the opening hours and the return policy."},
      {"reference_topics", {"store hours", "returns"}},
      {"retrieved_contexts", {"Shoes can be returned within 30 days."}},
      {"reference_tool_calls", {{{"name", "lookup_policy"}, {"args", {{"topic", "returns"}}}}}}};
  std::string jsonl = dir_.Write("c.jsonl", row.dump() + "\n");
  auto cell = [](const std::string& s) {
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  };
  std::string csv = dir_.Write(
      "c.csv",
      "id,user_input,reference,reference_topics,retrieved_contexts,reference_tool_calls\n"
      "c1," +
          cell(kConversation.dump()) + "," + cell(row["reference"]) + "," +
          cell(row["reference_topics"].dump()) + "," + cell(row["retrieved_contexts"].dump()) +
          "," + cell(row["reference_tool_calls"].dump()) + "\n");
  const std::string metrics =
      "agent_goal_accuracy,topic_adherence:mode=precision,tool_call_accuracy,faithfulness";
  std::vector<json> results;
  for (const std::string& data : {jsonl, csv}) {
    CommandOutput r = Eval(data, metrics);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    // One call each: the goal, the topics, the final turn's claims.
    EXPECT_NE(r.out.find("requests 3 (retries 0, repairs 0)"), std::string::npos) << r.out;
    std::vector<json> rows = Rows(dir_.Read("r.jsonl"));
    ASSERT_EQ(rows.size(), 1u);
    results.push_back(rows[0]);
  }
  EXPECT_EQ(results[0]["scores"], results[1]["scores"]);
  const json& s = results[0]["scores"];
  EXPECT_EQ(s["agent_goal_accuracy"], 1.0) << results[0].dump();
  // Topics: hours (answered, on reference), the election (refused), shoes (answered, but the
  // mock finds no reference word in it): precision 1 / 2.
  EXPECT_EQ(s["topic_adherence(mode=precision)"], 0.5) << results[0]["reasons"].dump();
  EXPECT_EQ(s["tool_call_accuracy"], 1.0);
  // Faithfulness of the final assistant turn against the row's contexts.
  EXPECT_EQ(s["faithfulness"], 1.0) << results[0]["reasons"].dump();
}

TEST_F(JudgedCriteriaTest, FaultsAreRecoveredAndEveryNullSaysWhy) {
  StartMock({"--fault-rate", "0.3", "--stall-ms", "1500"});
  std::string data = dir_.Write("d.jsonl", SingleTurnRows(8));
  CommandOutput r = Eval(data, kCriteria, "--cache off --timeout-ms 500");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.out;
  EXPECT_NE(r.out.find("retries"), std::string::npos) << r.out;
  std::vector<json> rows = Rows(dir_.Read("r.jsonl"));
  ASSERT_EQ(rows.size(), 8u);
  int scored = 0;
  for (const json& row : rows) {
    for (auto& [key, value] : row["scores"].items()) {
      if (value.is_null()) {
        EXPECT_FALSE(row["reasons"][key].get<std::string>().empty()) << key;
      } else {
        ++scored;
      }
    }
  }
  EXPECT_GT(scored, 8 * 9 / 2) << "most scores survive a 30% fault rate through retries";
}

TEST_F(JudgedCriteriaTest, TheOfflineJudgeSaysTheyNeedAnLlmJudge) {
  std::string data = dir_.Write("d.jsonl", SingleTurnRows(1));
  CommandOutput r =
      RunTala("eval " + data + " -o " + dir_.path() + "/r.jsonl --no-progress --metrics '" +
              std::string(kCriteria) + "' 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  std::vector<json> rows = Rows(dir_.Read("r.jsonl"));
  ASSERT_EQ(rows.size(), 1u);
  for (auto& [key, value] : rows[0]["scores"].items()) {
    // With the sentence encoder, the offline judge estimates context relevance
    // (OfflineJudgeTest.ContextRelevanceIsRatedWithTheEncoder).
    if (key == "context_relevance") continue;
    EXPECT_TRUE(value.is_null()) << key;
    EXPECT_NE(rows[0]["reasons"][key].get<std::string>().find("needs an LLM judge"),
              std::string::npos)
        << key << ": " << rows[0]["reasons"][key];
  }
}

// role_adherence (issue 54): each turn graded against the role the row gives its assistant,
// which reaches the judge beside the conversation (the mock keeps a turn in role when it shares
// a word of it; without the role it would grade by the contexts, and give 0 to both turns).
TEST_F(JudgedCriteriaTest, RoleAdherenceGradesEachTurnAgainstTheRowsRole) {
  StartMock();
  const json with_role = {
      {"id", "in-and-out"},
      {"chatbot_role", "You are the store's assistant: answer about opening hours and returns."},
      {"user_input", json::array({{{"type", "human"}, {"content", "When do you open?"}},
                                  {{"type", "ai"}, {"content", "Our opening hours are 9 to 5."}},
                                  {{"type", "human"}, {"content", "Which shares should I buy?"}},
                                  {{"type", "ai"}, {"content", "Buy Tesla now, quickly."}}})}};
  const json without = {{"id", "no-role"},
                        {"user_input", json::array({{{"type", "human"}, {"content", "Hi?"}},
                                                    {{"type", "ai"}, {"content", "Hello."}}})}};
  std::string data = dir_.Write("d.jsonl", with_role.dump() + "\n" + without.dump() + "\n");
  CommandOutput r = Eval(data, "faithfulness,role_adherence");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::vector<json> rows = Rows(dir_.Read("r.jsonl"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0]["scores"]["role_adherence"].get<double>(), 0.5) << rows[0].dump();
  EXPECT_EQ(rows[0]["turns"][1]["scores"]["role_adherence"], 0) << rows[0].dump();
  EXPECT_EQ(rows[0]["first_failing_turn"], 2) << rows[0].dump();
  EXPECT_EQ(rows[0]["turns"][1]["diagnosis"], "steps out of its role") << rows[0].dump();
  EXPECT_TRUE(rows[1]["scores"]["role_adherence"].is_null());
  EXPECT_NE(rows[1]["reasons"]["role_adherence"].get<std::string>().find("no role"),
            std::string::npos)
      << rows[1].dump();
  // A dry run counts the file's rows, and says they are conversations of 3 turns in all.
  CommandOutput planned = Eval(data, "role_adherence", "--cache off --dry-run");
  ASSERT_EQ(planned.exit_code, 0) << planned.out;
  EXPECT_NE(planned.out.find(", 2 rows; nothing was called"), std::string::npos) << planned.out;
  EXPECT_NE(planned.out.find("2 of the rows are conversations, judged turn by turn: 3 turns"),
            std::string::npos)
      << planned.out;
  // The offline judge does not read roles, and says so.
  CommandOutput offline = RunTala("eval " + data + " -o " + dir_.path() +
                                  "/o.jsonl --no-progress -m role_adherence 2>&1");
  ASSERT_EQ(offline.exit_code, 0) << offline.out;
  EXPECT_NE(Rows(dir_.Read("o.jsonl"))[0]["reasons"]["role_adherence"].get<std::string>().find(
                "needs an LLM judge"),
            std::string::npos);
  // A role that is not a text is named.
  std::string bad = dir_.Write("bad.jsonl", R"({"chatbot_role": 3, "user_input": "q"})"
                                            "\n");
  CommandOutput refused = RunTala("eval " + bad + " -o " + dir_.path() +
                                  "/b.jsonl --no-progress -m role_adherence 2>&1");
  EXPECT_NE(refused.out.find("bad.jsonl:1: field \"chatbot_role\""), std::string::npos)
      << refused.out;
}

TEST_F(JudgedCriteriaTest, AUserMetricFromTheConfigIsScored) {
  StartMock();
  std::string data = dir_.Write("d.jsonl", SingleTurnRows(2));
  std::string config = dir_.Write("tala.toml",
                                  "[metrics.on_topic]\n"
                                  "prompt = \"Does {response} answer {user_input}?\"\n"
                                  "output = \"discrete\"\n"
                                  "values = [\"no\", \"partly\", \"yes\"]\n"
                                  "[metrics.ctx_order]\n"
                                  "prompt = \"How useful is each context for {user_input}?\"\n"
                                  "output = \"ranking\"\n"
                                  "direction = \"lower\"\n");
  CommandOutput r = Eval(data, "on_topic,ctx_order", "--cache off --config " + config);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("requests 2 (retries 0, repairs 0)"), std::string::npos)
      << "both metrics share one criteria call per row: " << r.out;
  std::vector<json> rows = Rows(dir_.Read("r.jsonl"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0]["scores"]["on_topic"].is_number()) << rows[0].dump();
  // The mock ranks the contexts by overlap with the question: the retriever's order, rho 1.
  EXPECT_EQ(rows[0]["scores"]["ctx_order"], 1.0) << rows[0].dump();
  // The direction the config gives travels with the results file: the gate reads it there.
  CommandOutput gate = RunTala("gate " + dir_.path() + "/r.jsonl --min ctx_order=0.5 2>&1");
  EXPECT_NE(gate.exit_code, 0) << gate.out;
  EXPECT_NE(gate.out.find("ctx_order <= 0.5"), std::string::npos) << gate.out;

  std::string bad =
      dir_.Write("bad.toml", "[metrics.x]\nprompt = \"Is {answer} kind?\"\noutput = \"numeric\"\n");
  CommandOutput err = Eval(data, "x", "--config " + bad);
  EXPECT_EQ(err.exit_code, 2) << err.out;
  EXPECT_NE(err.out.find("bad.toml:1"), std::string::npos) << err.out;
  EXPECT_NE(err.out.find("unknown slot {answer}"), std::string::npos) << err.out;
}

}  // namespace
}  // namespace tala::testing
