// Conversations scored turn by turn (issue 54): a conversation row becomes one judged turn per ai
// message and comes back as one results line with each turn's scores; the per-turn metrics are
// means over turns, the conversation's diagnosis is its first failing turn's, and a
// conversation of n turns asks the judge n times. The bundled conversation set's seeded faults
// are found at their turns by the offline judge.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/turn_question.h"
#include "judges/offline/conversation_reading.h"
#include "judges/registry.h"
#include "support/temp_dir.h"
#include "tala/evaluate.h"

namespace tala {
namespace {

using testing::TempDir;

// The offline judge, counting the rows (turns) it is asked about.
class CountingJudge : public Judge {
 public:
  CountingJudge() : inner_(judges::CreateJudge("offline").value()) {}
  std::string name() const override { return "offline"; }
  Result<Verdicts> Answer(const JudgeQuery& q) override {
    ++calls;
    turns_seen.push_back(q.sample.turn);
    return inner_->Answer(q);
  }
  int calls = 0;
  std::vector<int> turns_seen;

 private:
  std::unique_ptr<Judge> inner_;
};

std::vector<nlohmann::json> ResultLines(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    if (j.contains("id")) out.push_back(std::move(j));
  }
  return out;
}

std::string Write(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

constexpr const char* kFares =
    "Larkspur Transit fares from 1 January 2025: a single ride costs 2.40 euros and is valid for "
    "90 minutes of transfers on buses and trams. Children under 12 ride free.";

std::string Conversation(int n_turns, bool invent_second) {
  nlohmann::json messages = nlohmann::json::array();
  const char* asks[] = {"How much does a single ride cost?",
                        "How long is a single ride valid for transfers?",
                        "Do children under 12 ride free?", "How much does a single ride cost?"};
  const char* answers[] = {"A single ride costs 2.40 euros.",
                           "A single ride is valid for 90 minutes of transfers on buses and trams.",
                           "Yes, children under 12 ride free.", "A single ride costs 2.40 euros."};
  for (int t = 0; t < n_turns; ++t) {
    messages.push_back({{"type", "human"}, {"content", asks[t % 4]}});
    std::string answer = answers[t % 4];
    if (invent_second && t == 1) {
      answer = "A single ride is valid for three hours and also covers the metro and trains.";
    }
    messages.push_back({{"type", "ai"}, {"content", answer}, {"retrieved_contexts", {kFares}}});
  }
  return nlohmann::json{{"id", "c" + std::to_string(n_turns)}, {"user_input", messages}}.dump();
}

TEST(ConversationTest, EachTurnIsJudgedOnceAndTheConversationIsOneLine) {
  TempDir dir;
  const std::string data =
      Write(dir, "chats.jsonl", Conversation(3, true) + "\n" + Conversation(4, false) + "\n");
  EvalOptions o;
  o.dataset = data;
  o.out = dir.path() + "/out.jsonl";
  // The default metrics for conversations whose turns carry passages and no reference, with the
  // offline judge.
  auto defaults = Evaluate(o);
  ASSERT_TRUE(defaults.has_value()) << defaults.error().ToString();
  std::vector<std::string> names;
  for (const auto& m : defaults->metrics) names.push_back(m.key);
  const std::vector<std::string> expected = {"turn_faithfulness", "turn_response_relevancy",
                                             "turn_context_relevance", "knowledge_retention",
                                             "conversation_completeness"};
  EXPECT_EQ(names, expected);
  auto judge = std::make_shared<CountingJudge>();
  o.custom_judge = judge;
  o.overwrite = true;
  o.metrics =
      "turn_faithfulness,turn_response_relevancy,turn_context_relevance,"
      "knowledge_retention,conversation_completeness";
  auto summary = Evaluate(o);
  ASSERT_TRUE(summary.has_value()) << summary.error().ToString();
  // O(n): one judge call per turn, 3 + 4, never a re-read of earlier turns.
  EXPECT_EQ(judge->calls, 7);
  EXPECT_EQ(summary->rows_scored, 2);
  auto lines = ResultLines(o.out);
  ASSERT_EQ(lines.size(), 2u);
  const auto& bad = lines[0];
  ASSERT_EQ(bad["turns"].size(), 3u);
  EXPECT_EQ(bad["turns"][1]["turn"], 2);
  EXPECT_EQ(bad["turns"][1]["message"], 3);
  // The invented turn is the one that fails, in the generator, and the conversation says so.
  EXPECT_LT(bad["turns"][1]["scores"]["faithfulness"].get<double>(), 0.5);
  EXPECT_GE(bad["turns"][0]["scores"]["faithfulness"].get<double>(), 0.9);
  EXPECT_EQ(bad["first_failing_turn"], 2);
  EXPECT_EQ(bad["diagnosis"], bad["turns"][1]["diagnosis"]);
  EXPECT_EQ(bad["turns"][1]["diagnosis"], "generator not grounded");
  // The conversation's value is the mean over its turns, and its reason names the weakest turn.
  double sum = 0;
  for (const auto& t : bad["turns"]) sum += t["scores"]["faithfulness"].get<double>();
  EXPECT_NEAR(bad["scores"]["turn_faithfulness"].get<double>(), sum / 3, 1e-9);
  EXPECT_NE(bad["reasons"]["turn_faithfulness"].get<std::string>().find("weakest turn 2"),
            std::string::npos)
      << bad["reasons"].dump();
  const auto& good = lines[1];
  EXPECT_EQ(good["diagnosis"], "healthy");
  EXPECT_FALSE(good.contains("first_failing_turn"));
  EXPECT_EQ(good["scores"]["conversation_completeness"], 1.0) << good["reasons"].dump();
}

TEST(ConversationTest, RowMetricsScoreTheLastTurnAndSingleRowsAreNotTurns) {
  TempDir dir;
  const std::string single = nlohmann::json{
      {"id", "s"},
      {"user_input", "How much does a single ride cost?"},
      {"response", "A single ride costs 2.40 euros."},
      {"retrieved_contexts",
       {kFares}}}.dump();
  const std::string data = Write(dir, "mixed.jsonl", Conversation(3, false) + "\n" + single + "\n");
  auto judge = std::make_shared<CountingJudge>();
  EvalOptions o;
  o.dataset = data;
  o.out = dir.path() + "/out.jsonl";
  o.custom_judge = judge;
  o.metrics = "turn_faithfulness,faithfulness";
  auto summary = Evaluate(o);
  ASSERT_TRUE(summary.has_value()) << summary.error().ToString();
  // faithfulness is asked on the conversation's last turn only: 3 turns + 1 row.
  EXPECT_EQ(judge->calls, 4);
  auto lines = ResultLines(o.out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["scores"]["faithfulness"], lines[0]["turns"][2]["scores"]["faithfulness"]);
  EXPECT_TRUE(lines[1]["scores"]["turn_faithfulness"].is_null());
  EXPECT_NE(lines[1]["reasons"]["turn_faithfulness"].get<std::string>().find("not a turn"),
            std::string::npos);
  EXPECT_FALSE(lines[1].contains("turns"));
}

TEST(ConversationTest, BadTurnFieldsNameTheMessageAndField) {
  TempDir dir;
  const std::string data =
      Write(dir, "bad.jsonl",
            R"({"id":"a","user_input":[{"type":"human","content":"hi","retrieved_contexts":["x"]},)"
            R"({"type":"ai","content":"hello"}]})"
            "\n");
  EvalOptions o;
  o.dataset = data;
  o.out = dir.path() + "/out.jsonl";
  RunSummary partial;
  auto summary = Evaluate(o, &partial);
  ASSERT_FALSE(summary.has_value());
  ASSERT_FALSE(partial.errors.empty());
  EXPECT_NE(partial.errors[0].ToString().find("user_input[0].retrieved_contexts"),
            std::string::npos)
      << partial.errors[0].ToString();
  EXPECT_NE(partial.errors[0].ToString().find("only an ai message"), std::string::npos);
}

TEST(ConversationTest, AFollowUpIsReadWithTheQuestionBeforeIt) {
  std::vector<Message> m = {{Message::Type::kHuman, "How much is a single ride?"},
                            {Message::Type::kAi, "2.40 euros."},
                            {Message::Type::kHuman, "And after that?"},
                            {Message::Type::kAi, "..."},
                            {Message::Type::kHuman, "Thanks! How often do the night buses run?"},
                            {Message::Type::kAi, "..."}};
  EXPECT_EQ(TurnQuestion(m, 1), "How much is a single ride?");
  EXPECT_EQ(TurnQuestion(m, 3), "How much is a single ride - And after that?");
  // Courtesy is dropped; a question that stands alone is read alone.
  EXPECT_EQ(TurnQuestion(m, 5), "How often do the night buses run?");
  TurnAsk ask = ReadTurnAsk(m, 5);
  EXPECT_FALSE(ask.leans);
  EXPECT_EQ(ask.with_before, "And after that - How often do the night buses run?");
  // Courtesy alone asks nothing, and leans on nothing.
  EXPECT_TRUE(IsCourtesyOnly("Thanks!"));
  EXPECT_TRUE(IsCourtesyOnly("ok, great."));
  EXPECT_FALSE(IsCourtesyOnly("Thanks! How often do they run?"));
  m.push_back({Message::Type::kHuman, "Thanks!"});
  m.push_back({Message::Type::kAi, "You are welcome."});
  EXPECT_EQ(TurnQuestion(m, 7), "Thanks!");
}

TEST(ConversationTest, ACourtesyTurnIsNotScoredForRelevanceAndAnEmptyChatSaysWhy) {
  TempDir dir;
  const std::string data = Write(
      dir, "chats.jsonl",
      R"({"id":"a","user_input":[{"type":"human","content":"How much does a single ride cost?"},)"
      R"({"type":"ai","content":"A single ride costs 2.40 euros.","retrieved_contexts":[")" +
          std::string(kFares) +
          R"("]},{"type":"human","content":"Thanks!"},{"type":"ai","content":"You are welcome."}]})"
          "\n"
          R"({"id":"b","user_input":[{"type":"human","content":"hello?"},{"type":"ai","content":"",)"
          R"("retrieved_contexts":["x"]}]})"
          "\n");
  EvalOptions o;
  o.dataset = data;
  o.out = dir.path() + "/out.jsonl";
  o.metrics = "turn_response_relevancy,turn_faithfulness";
  auto summary = Evaluate(o);
  ASSERT_TRUE(summary.has_value()) << summary.error().ToString();
  auto lines = ResultLines(o.out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["diagnosis"], "healthy") << lines[0].dump();
  EXPECT_TRUE(lines[0]["turns"][1]["scores"]["response_relevancy"].is_null());
  EXPECT_EQ(lines[0]["turns"][1]["reasons"]["response_relevancy"],
            "turn 2 asks nothing (courtesy only)");
  EXPECT_EQ(lines[1]["reasons"]["turn_faithfulness"],
            "the conversation has no answer to score (no ai message with text)");
}

TEST(ConversationTest, RetentionCatchesAContradictedValueAndAQuestionAlreadyAnswered) {
  text::Stemmer stemmer;
  auto read = [&](const std::string& user, const std::string& answer) {
    std::vector<Message> m = {{Message::Type::kHuman, user}, {Message::Type::kAi, answer}};
    return judges::offline::ReadRetention(m, 1, stemmer);
  };
  EXPECT_FALSE(read("I travel with my two children.", "Your three children ride free.").kept);
  EXPECT_FALSE(read("I lost my phone on Saturday.", "Since you lost it on Tuesday, wait.").kept);
  EXPECT_FALSE(read("I am a student.", "Are you a student? Students pay 35 euros.").kept);
  // The same values, or numbers not about the user, are kept.
  EXPECT_TRUE(read("I travel with my two children.", "Your two children ride free.").kept);
  EXPECT_TRUE(read("I travel with my two children.", "Children under 12 ride free.").kept);
  EXPECT_TRUE(read("How much is a ticket?", "A ticket costs 2 euros.").kept);
}

// The bundled set (examples/make_conversations.py): 13 seeded faults in 12 conversations, 8
// clean ones. Issue 54's targets are 0.90 for both shares; the floors here are what this
// offline judge reaches (bench/conversation_faults.py prints the same table), so a change that
// loses a fault or flags a clean turn fails.
TEST(ConversationTest, TheBundledSetsFaultsAreFoundAtTheirTurns) {
  TempDir dir;
  EvalOptions o;
  o.dataset = std::string(TALA_SOURCE_DIR) + "/examples/data/conversations.jsonl";
  o.out = dir.path() + "/out.jsonl";
  auto summary = Evaluate(o);
  ASSERT_TRUE(summary.has_value()) << summary.error().ToString();
  std::map<std::string, nlohmann::json> results;
  for (auto& line : ResultLines(o.out)) results[line["id"]] = line;
  std::ifstream in(o.dataset);
  std::string line;
  int seeded = 0, found = 0, clean_turns = 0, clean_ok = 0;
  while (std::getline(in, line)) {
    auto row = nlohmann::json::parse(line);
    const auto& r = results.at(row["id"]);
    auto flags = [&](int turn) {
      const auto& t = r["turns"][turn - 1];
      std::set<std::string> f;
      const auto& s = t["scores"];
      if (s["faithfulness"].is_number() && s["faithfulness"].get<double>() < 0.7) {
        f.insert("hallucination");
      }
      if (t["diagnosis"].get<std::string>().rfind("retriever", 0) == 0) f.insert("wrong_chunk");
      if (s["knowledge_retention"] == 0) f.insert("forgets");
      const auto& c = r["scores"]["conversation_completeness"];
      if (c.is_number() && c.get<double>() < 1 &&
          r["reasons"]["conversation_completeness"].get<std::string>().find(
              "turn " + std::to_string(turn) + " ") != std::string::npos) {
        f.insert("unmet_ask");
      }
      return std::make_pair(f, t["diagnosis"].get<std::string>());
    };
    if (!row["faults"].empty()) {
      for (const auto& fault : row["faults"]) {
        ++seeded;
        found += flags(fault["turn"]).first.count(fault["kind"]) ? 1 : 0;
      }
      continue;
    }
    for (const auto& t : r["turns"]) {
      auto [f, diagnosis] = flags(t["turn"]);
      ++clean_turns;
      clean_ok += f.empty() && diagnosis == "healthy" ? 1 : 0;
    }
  }
  EXPECT_EQ(seeded, 13);
  EXPECT_GE(found, 12);  // 0.92 (goal 0.90)
  EXPECT_EQ(clean_turns, 28);
  EXPECT_GE(clean_ok, 26);  // 0.93 (goal 0.90); the held-out library chats: 8 of 11
}

}  // namespace
}  // namespace tala
