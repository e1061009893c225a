// tala testset and tala testset accept as a user runs them: a log and a docs folder to
// candidates and a report, a review's labels to golden.jsonl, and that file through tala eval.

#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli/child_process.h"
#include "cli/headless_browser.h"
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
  auto run =
      RunTala("testset --logs " + log.logs + " --docs " + log.docs + " --size 6 --seed 3 -o " +
              candidates + " --report " + dir.path() + "/testset.html 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const std::string page = Slurp(dir.path() + "/testset.html");
  EXPECT_NE(page.find("tala testset: 6 candidates"), std::string::npos);
  EXPECT_TRUE(page.find("joined by meaning)") != std::string::npos ||
              run.out.find("by their words only") != std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("http"), std::string::npos) << "the page fetches nothing";
  EXPECT_NE(run.out.find("20 intents"), std::string::npos) << run.out;
  // With the encoder (make deps), the intents were read for meaning too.
  EXPECT_TRUE(run.out.find("joined by meaning)") != std::string::npos ||
              run.out.find("by their words only") != std::string::npos)
      << run.out;
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
  // Moving out a phrasing the item does not list, the item's own question, or not a list: an
  // error naming the labels file's line and the field, nothing written.
  const std::string own(std::string_view(p.parse(first.substr(0, first.find('\n')))["user_input"]));
  auto Json = [](const std::string& text) {
    std::string out = "\"";
    for (char c : text) out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    return out + "\"";
  };
  for (const std::string& moved :
       {std::string("[\"never asked\"]"), "[" + Json(own) + "]", std::string("\"one\"")}) {
    std::ofstream(dir.path() + "/moved.jsonl")
        << "{\"id\":\"" << ids[1] << "\",\"decision\":\"accept\"}\n"
        << "{\"id\":\"" << ids[0] << "\",\"decision\":\"accept\",\"moved_out\":" << moved << "}\n";
    auto m = RunTala("testset accept " + candidates + " --labels " + dir.path() +
                     "/moved.jsonl -o " + dir.path() + "/g3.jsonl 2>&1");
    EXPECT_EQ(m.exit_code, 2) << moved << m.out;
    EXPECT_NE(m.out.find("moved.jsonl:2"), std::string::npos) << m.out;
    EXPECT_NE(m.out.find("moved_out"), std::string::npos) << m.out;
    EXPECT_FALSE(std::ifstream(dir.path() + "/g3.jsonl").good());
  }
  // The output may not be an input.
  auto same = RunTala("testset --logs " + log.logs + " -o " + log.logs + " 2>&1");
  EXPECT_EQ(same.exit_code, 2) << same.out;
  EXPECT_NE(Slurp(log.logs).size(), 0u);
}

// Issue 54 item 6: a log of conversations gives each question its user asked; an item whose
// question leans on the one before it keeps its session's earlier questions (and its reference
// answers it as asked after them); accept writes it as a conversation, and tala run plays the
// golden set, conversations and single questions together.
TEST(TestsetCliTest, ASessionsFollowUpBecomesAConversationItemThatTalaRunPlays) {
  TempDir dir;
  const std::string data = std::string(TALA_SOURCE_DIR) + "/examples/data/";
  const std::string candidates = dir.path() + "/candidates.jsonl";
  auto built = RunTala("testset --logs " + data + "conversations.jsonl --docs " + data +
                       "knowledge_base.jsonl --size 10 --seed 1 -o " + candidates + " 2>&1");
  ASSERT_EQ(built.exit_code, 0) << built.out;
  // Every human turn of the 20 logged conversations is a logged question.
  EXPECT_NE(built.out.find("questions: 66 logged"), std::string::npos) << built.out;
  simdjson::dom::parser p;
  std::istringstream lines(Slurp(candidates));
  std::string follow_up_id, labels = "{\"tala_labels\":1}\n";
  int conversations = 0;
  for (std::string line; std::getline(lines, line);) {
    simdjson::dom::element item = p.parse(line);
    const std::string id{std::string_view(item["id"])};
    const std::string question{std::string_view(item["user_input"])};
    simdjson::dom::array earlier;
    const bool conversation = !item["metadata"]["earlier_turns"].get_array().get(earlier);
    conversations += conversation ? 1 : 0;
    if (question == "How often do they run?") {
      follow_up_id = id;
      ASSERT_TRUE(conversation) << line;
      ASSERT_EQ(earlier.size(), 2u) << line;
      EXPECT_EQ(std::string_view(earlier.at(0)), "Are there buses at night?");
      EXPECT_EQ(std::string_view(earlier.at(1)), "Where do they leave from?");
      // Drafted for the question as asked after the one before it: the night buses' timetable.
      EXPECT_NE(std::string_view(item["reference"]).find("every 30 minutes"), std::string::npos)
          << line;
      labels += "{\"id\":\"" + id +
                "\",\"decision\":\"edit\",\"user_input\":\"How often do the night buses run?\"}\n";
    } else {
      // A question that stands alone stays a single question.
      if (question == "How often does the harbour ferry sail?") {
        EXPECT_FALSE(conversation) << line;
      }
      labels += "{\"id\":\"" + id + "\",\"decision\":\"accept\"}\n";
    }
  }
  ASSERT_FALSE(follow_up_id.empty());
  EXPECT_GE(conversations, 2);
  std::ofstream(dir.path() + "/labels.jsonl") << labels;
  const std::string golden = dir.path() + "/golden.jsonl";
  auto accepted = RunTala("testset accept " + candidates + " --labels " + dir.path() +
                          "/labels.jsonl -o " + golden + " 2>&1");
  ASSERT_EQ(accepted.exit_code, 0) << accepted.out;
  std::istringstream rows(Slurp(golden));
  bool seen = false;
  for (std::string line; std::getline(rows, line);) {
    simdjson::dom::element row = p.parse(line);
    if (std::string_view(row["id"]) != follow_up_id) continue;
    seen = true;
    simdjson::dom::array messages = row["user_input"].get_array();
    ASSERT_EQ(messages.size(), 3u) << line;
    EXPECT_EQ(std::string_view(messages.at(0)["content"]), "Are there buses at night?");
    EXPECT_EQ(std::string_view(messages.at(2)["content"]), "How often do the night buses run?");
  }
  EXPECT_TRUE(seen);
  const std::string played = dir.path() + "/played.jsonl";
  auto run = RunTala("run " + golden + " --target 'exec:/usr/bin/python3 " + TALA_SOURCE_DIR +
                     "/examples/rag_app/rag_app.py jsonl' --out " + played + " --quiet 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  auto eval = RunTala("eval " + played + " -m conversation --no-progress -o " + dir.path() +
                      "/r.jsonl 2>&1");
  EXPECT_EQ(eval.exit_code, 0) << eval.out;
  EXPECT_NE(eval.out.find("rows: 10 scored"), std::string::npos) << eval.out;
}

TEST(TestsetCliTest, WithoutTheSentenceEncoderTheWordsAloneGroupAndTheReportSaysSo) {
  TempDir dir;
  testing::IntentLog log = testing::MakeIntentLog(dir, 40, 60, 11);
  const char* was = std::getenv("TALA_SENTENCE_ENCODER");
  const std::string saved = was ? was : "";
  setenv("TALA_SENTENCE_ENCODER", (dir.path() + "/no-model").c_str(), 1);
  const std::string args = "testset --logs " + log.logs + " --docs " + log.docs +
                           " --size 6 --seed 3 -o " + dir.path() + "/c.jsonl";
  auto text = RunTala(args + " 2>&1");
  auto json = RunTala(args + " --json");
  if (was) {
    setenv("TALA_SENTENCE_ENCODER", saved.c_str(), 1);
  } else {
    unsetenv("TALA_SENTENCE_ENCODER");
  }
  ASSERT_EQ(text.exit_code, 0) << text.out;
  EXPECT_NE(text.out.find("by their words only"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("make deps"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("joined by meaning"), std::string::npos) << text.out;
  ASSERT_EQ(json.exit_code, 0) << json.out;
  EXPECT_NE(json.out.find("\"intents_joined_by_meaning\":null"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"intents\":20"), std::string::npos) << json.out;
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

std::string Candidates(const TempDir& dir, const testing::IntentLog& log, int size) {
  const std::string out = dir.path() + "/candidates.jsonl";
  auto run = RunTala("testset --logs " + log.logs + " --docs " + log.docs + " --size " +
                     std::to_string(size) + " -o " + out + " 2>&1");
  EXPECT_EQ(run.exit_code, 0) << run.out;
  return out;
}

// The review page decides five items by key presses in headless Chromium; its export is what
// tala testset accept reads.
TEST(TestsetCliTest, TheReviewPageDecidesByKeyAndItsExportIsAccepted) {
  if (!std::ifstream(testing::kChromium).good()) {
    GTEST_SKIP() << "chromium is not installed (make test-deps installs it)";
  }
  TempDir dir;
  testing::IntentLog log = testing::MakeIntentLog(dir, 40, 60, 5);
  const std::string candidates = Candidates(dir, log, 6);
  const std::string page = dir.path() + "/review.html";
  auto review = RunTala("review --testset " + candidates + " --out " + page + " 2>&1");
  ASSERT_EQ(review.exit_code, 0) << review.out;
  EXPECT_NE(review.out.find("6 candidates"), std::string::npos) << review.out;
  const std::string html = Slurp(page);
  for (const char* fetch : {"src=\"http", "href=\"http", "fetch("}) {
    EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;
  }
  std::string dom = testing::DumpDom("file://" + page + "#selftest");
  size_t at = dom.find("SELFTEST ");
  ASSERT_NE(at, std::string::npos) << "the self-test did not run";
  EXPECT_EQ(dom.substr(at, dom.find('<', at) - at),
            "SELFTEST decided=5 exported=5 errors=0 marks=yes moved=1");
  // Under the question, what its intent holds: its phrasings as asked, with their counts.
  EXPECT_NE(dom.find("<ul id=\"phrasings\"><li>[1] \u201c"), std::string::npos)
      << dom.substr(0, 3000);
  // The export, as the page wrote it, to a labels file.
  const std::string open = "<pre id=\"selftest-export\">";
  size_t from = dom.find(open);
  ASSERT_NE(from, std::string::npos);
  from += open.size();
  std::string labels = dom.substr(from, dom.find("</pre>", from) - from);
  for (size_t q; (q = labels.find("&quot;")) != std::string::npos;) labels.replace(q, 6, "\"");
  std::ofstream(dir.path() + "/labels.jsonl") << labels;
  auto accepted = RunTala("testset accept " + candidates + " --labels " + dir.path() +
                          "/labels.jsonl -o " + dir.path() + "/golden.jsonl 2>&1");
  ASSERT_EQ(accepted.exit_code, 0) << accepted.out << labels;
  EXPECT_NE(accepted.out.find("3 golden rows written"), std::string::npos) << accepted.out;
  EXPECT_NE(accepted.out.find("1 accepted, 1 edited, 1 unanswerable"), std::string::npos)
      << accepted.out;
  const std::string golden = Slurp(dir.path() + "/golden.jsonl");
  EXPECT_NE(golden.find("Edited by the self-test."), std::string::npos);
  // The phrasing moved out of the first item's intent left its phrasings and its log rows.
  std::istringstream rows(golden);
  std::string first;
  std::getline(rows, first);
  simdjson::dom::parser p;
  simdjson::dom::element row = p.parse(first);
  simdjson::dom::array moved = row["metadata"]["moved_out"];
  ASSERT_EQ(moved.size(), 1u) << first;
  const std::string_view text = moved.at(0)["text"];
  for (simdjson::dom::element phrasing : row["metadata"]["phrasings"].get_array()) {
    EXPECT_NE(std::string_view(phrasing["text"]), text);
  }
  for (simdjson::dom::element id : moved.at(0)["log_ids"].get_array()) {
    EXPECT_EQ(simdjson::minify(row["metadata"]["log_ids"]).find(simdjson::minify(id)),
              std::string::npos);
  }
}

// Served: every save is checked as accept reads it, and only the page's token may save.
TEST(TestsetCliTest, TheServedReviewSavesCheckedDecisions) {
  TempDir dir;
  testing::IntentLog log = testing::MakeIntentLog(dir, 40, 60, 5);
  const std::string candidates = Candidates(dir, log, 3);
  const std::string labels = dir.path() + "/labels.jsonl";
  testing::ChildProcess child({std::string(TALA_BINARY_DIR) + "/tala", "review", "--testset",
                               candidates, "--serve", "--port", "0", "--labels-out", labels});
  const std::string url = child.FirstLine();
  httplib::Client c(url.substr(0, url.size() - 1));
  auto page = c.Get("/");
  ASSERT_TRUE(page);
  const size_t at = page->body.find("id=\"token\">\"");
  ASSERT_NE(at, std::string::npos);
  const std::string token = page->body.substr(at + 12, 32);
  std::istringstream lines(Slurp(candidates));
  std::string first;
  std::getline(lines, first);
  simdjson::dom::parser p;
  const std::string id(std::string_view(p.parse(first)["id"]));
  httplib::Headers headers = {{"X-Tala-Token", token}};
  auto saved = c.Post("/labels", headers, "{\"id\":\"" + id + "\",\"decision\":\"accept\"}\n",
                      "application/x-ndjson");
  ASSERT_TRUE(saved);
  EXPECT_EQ(saved->status, 200) << saved->body;
  EXPECT_NE(saved->body.find("1 decisions saved"), std::string::npos) << saved->body;
  auto unknown = c.Post("/labels", headers, "{\"id\":\"tq-nope\",\"decision\":\"accept\"}\n",
                        "application/x-ndjson");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 400);
  EXPECT_NE(unknown->body.find("tq-nope"), std::string::npos) << unknown->body;
  auto forged = c.Post("/labels", "{\"id\":\"" + id + "\",\"decision\":\"reject\"}\n",
                       "application/x-ndjson");
  ASSERT_TRUE(forged);
  EXPECT_EQ(forged->status, 403);
  const std::string kept = Slurp(labels);
  EXPECT_NE(kept.find("\"decision\":\"accept\""), std::string::npos) << kept;
  EXPECT_EQ(kept.find("tq-nope"), std::string::npos);
}

}  // namespace
}  // namespace tala

namespace tala {
namespace {

// A tala serve database as the log: the rows it scored.
TEST(TestsetCliTest, AServeDatabaseIsALog) {
  TempDir dir;
  const std::string db = dir.path() + "/t.sqlite";
  {
    testing::ChildProcess serve({std::string(TALA_BINARY_DIR) + "/tala", "serve", "--db", db,
                                 "--port", "0", "--session-quiet", "0"});
    httplib::Client c(serve.FirstLine());
    // The demo's 22 rows, and a session of two turns (one conversation row once quiet).
    auto res =
        c.Post("/v1/interactions",
               Slurp(std::string(TALA_SOURCE_DIR) + "/examples/data/interactions.jsonl") +
                   "{\"conversation_id\":\"s1\",\"turn\":1,\"user_input\":\"Are there buses at "
                   "night?\",\"response\":\"Yes.\"}\n"
                   "{\"conversation_id\":\"s1\",\"turn\":2,\"user_input\":\"How often do they "
                   "run?\",\"response\":\"Every 30 minutes.\"}\n",
               "application/x-ndjson");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 202);
    for (int i = 0; i < 600; ++i) {
      auto s = c.Get("/v1/summary?window=1d");
      if (s && s->body.find("\"rows_scored\":23,") != std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  auto run =
      RunTala("testset --logs " + db + " --docs " + std::string(TALA_SOURCE_DIR) +
              "/examples/data/knowledge_base.jsonl --size 5 -o " + dir.path() + "/c.jsonl 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  // Each of the session's questions, the second kept with the first.
  EXPECT_NE(run.out.find("questions: 24 logged"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("5 candidates written"), std::string::npos) << run.out;
  auto all = RunTala("testset --logs " + db + " --size 30 -o " + dir.path() + "/all.jsonl 2>&1");
  ASSERT_EQ(all.exit_code, 0) << all.out;
  const std::string items = Slurp(dir.path() + "/all.jsonl");
  EXPECT_NE(items.find("\"log_ids\":[\"s1#2\"],\"earlier_turns\":[\"Are there buses at night?\"]"),
            std::string::npos)
      << items;
}

}  // namespace
}  // namespace tala

namespace tala {
namespace {

size_t LineCount(const std::string& path) {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// An LLM judge writes the set; killed with -9 halfway, the same command again asks the judge
// only for what its cache lacks, and the file is the one an uninterrupted run writes.
TEST(TestsetCliTest, AKilledLlmRunResumesFromTheJudgesCache) {
  TempDir dir;
  testing::IntentLog log = testing::MakeIntentLog(dir, 40, 60, 11);
  const std::string arrivals = dir.path() + "/arrivals.log";
  std::string url;
  auto mock = testing::StartMockJudge({"--latency-ms", "40", "--arrival-log", arrivals}, &url);
  ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << url;
  const std::string cache = dir.path() + "/cache.sqlite";
  const std::string out = dir.path() + "/candidates.jsonl";
  std::vector<std::string> argv = {std::string(TALA_BINARY_DIR) + "/tala",
                                   "testset",
                                   "--docs",
                                   log.docs,
                                   "--size",
                                   "16",
                                   "--judge",
                                   "openai:mock-model",
                                   "--base-url",
                                   url,
                                   "--max-in-flight",
                                   "2",
                                   "--no-progress"};
  setenv("OPENAI_API_KEY", "test", 1);
  std::string common;
  for (size_t i = 2; i < argv.size(); ++i) common += " '" + argv[i] + "'";
  const std::string flags = common + " --cache " + cache + " -o " + out;
  argv.insert(argv.end(), {"--cache", cache, "-o", out});
  // The estimate first: 16 questions and 16 references, nothing sent, nothing written.
  auto estimate = RunTala("testset" + flags + " --dry-run 2>&1");
  ASSERT_EQ(estimate.exit_code, 0) << estimate.out;
  EXPECT_NE(estimate.out.find("estimated: 32 calls to openai:mock-model"), std::string::npos)
      << estimate.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(LineCount(arrivals), 0u);
  {
    testing::ChildProcess tala(argv, /*pipe_stdout=*/false);
    for (int i = 0; i < 400 && LineCount(arrivals) < 8; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    tala.Kill(SIGKILL);
  }
  const size_t before = LineCount(arrivals);
  ASSERT_GE(before, 8u);
  ASSERT_LT(before, 32u) << "the run finished before it could be killed";
  EXPECT_FALSE(std::filesystem::exists(out));
  auto resumed = RunTala("testset" + flags + " 2>&1");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out;
  const size_t asked = LineCount(arrivals) - before;
  EXPECT_LT(asked, 32u) << "the replies stored before the kill were asked again";
  EXPECT_GE(before + asked, 32u);
  EXPECT_NE(resumed.out.find("more answered by the cache"), std::string::npos) << resumed.out;
  const std::string resumed_file = Slurp(out);
  EXPECT_GE(LineCount(out), 12u);
  // The file an uninterrupted run writes (no cache) is the same, byte for byte.
  auto fresh = RunTala("testset" + common + " --cache off -o " + dir.path() + "/fresh.jsonl 2>&1");
  ASSERT_EQ(fresh.exit_code, 0) << fresh.out;
  EXPECT_EQ(Slurp(dir.path() + "/fresh.jsonl"), resumed_file);
}

}  // namespace
}  // namespace tala

namespace tala {
namespace {

// Issue 53 item 5: a golden set built on one chunking, remapped onto a much finer one (pieces of
// about 120 bytes cut at a space, so most quotes span several chunks), keeps every item's evidence,
// the same quotes, under the new chunk ids; tala validate reads it as it is. An empty chunking
// is refused and a chunking that lacks a document lists what it lost.
TEST(TestsetCliTest, RemapMovesTheEvidenceOntoAFinerChunking) {
  TempDir dir;
  testing::IntentLog log = testing::MakeIntentLog(dir, 40, 60, 11);
  const std::string candidates = dir.path() + "/candidates.jsonl";
  ASSERT_EQ(RunTala("testset --logs " + log.logs + " --docs " + log.docs + " --size 12 -o " +
                    candidates + " --no-progress")
                .exit_code,
            0);
  std::ofstream labels(dir.path() + "/labels.jsonl");
  simdjson::dom::parser p;
  {
    std::istringstream lines(Slurp(candidates));
    for (std::string line; std::getline(lines, line);) {
      labels << "{\"id\":\"" << std::string_view(p.parse(line)["id"])
             << "\",\"decision\":\"accept\"}\n";
    }
  }
  labels.close();
  const std::string golden = dir.path() + "/golden.jsonl";
  ASSERT_EQ(RunTala("testset accept " + candidates + " --labels " + dir.path() +
                    "/labels.jsonl -o " + golden)
                .exit_code,
            0);
  // The new chunking: each document in pieces of about 120 bytes, cut at a space.
  const std::string chunks = dir.path() + "/half.jsonl";
  std::ofstream out(chunks);
  int64_t pieces = 0;
  for (const auto& file : std::filesystem::directory_iterator(log.docs)) {
    const std::string text = Slurp(file.path().string());
    const std::string source = file.path().filename().string();
    for (size_t at = 0, n = 0; at < text.size(); ++n) {
      size_t end = std::min(text.size(), at + 120);
      if (end < text.size())
        end = text.find(' ', end) == std::string::npos ? text.size() : text.find(' ', end);
      std::string piece = text.substr(at, end - at);
      std::string escaped;
      for (char c : piece) {
        if (c == '"' || c == '\\') escaped += '\\';
        if (c == '\n') {
          escaped += "\\n";
          continue;
        }
        escaped += c;
      }
      out << "{\"id\":\"" << source << "~" << n << "\",\"source\":\"" << source << "\",\"text\":\""
          << escaped << "\"}\n";
      ++pieces;
      at = end;
    }
  }
  out.close();
  const std::string remapped = dir.path() + "/remapped.jsonl";
  auto run =
      RunTala("testset remap " + golden + " --chunks " + chunks + " -o " + remapped + " 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_EQ(run.out.find("whose evidence no chunk holds"), std::string::npos) << run.out;
  std::istringstream before(Slurp(golden)), after(Slurp(remapped));
  int64_t rows = 0, with_quotes = 0;
  for (std::string a, b; std::getline(before, a) && std::getline(after, b);) {
    ++rows;
    simdjson::dom::parser pa, pb;
    simdjson::dom::element ea = pa.parse(a), eb = pb.parse(b);
    simdjson::dom::array qa, qb;
    if (ea["metadata"]["quotes"].get(qa) || qa.size() == 0) continue;
    ++with_quotes;
    ASSERT_FALSE(eb["metadata"]["quotes"].get(qb));
    ASSERT_EQ(qa.size(), qb.size());
    std::string contexts;
    for (auto c : eb["reference_contexts"].get_array())
      contexts += std::string(c.get_string().value()) + " ";
    for (size_t i = 0; i < qa.size(); ++i) {
      const std::string text(qb.at(i)["text"].get_string().value());
      EXPECT_EQ(text, std::string(qa.at(i)["text"].get_string().value())) << "the same quotes";
      const std::string id(qb.at(i)["context_id"].get_string().value());
      EXPECT_NE(id.find('~'), std::string::npos) << "a new chunk's id: " << id;
      // The quote is in its chunk, or across its two (joined where they were cut).
      std::string joined;
      for (auto c : eb["reference_contexts"].get_array()) joined += c.get_string().value();
      EXPECT_NE(joined.find(text), std::string::npos) << text;
    }
  }
  EXPECT_EQ(rows, 12);
  EXPECT_GE(with_quotes, 10);
  EXPECT_EQ(RunTala("validate " + remapped).exit_code, 0);
  // Id-based recall runs on the new index without labelling again: a retriever that returns
  // the new chunks that hold the evidence recalls all of it.
  {
    std::ofstream run_rows(dir.path() + "/run.jsonl");
    std::istringstream lines(Slurp(remapped));
    for (std::string line; std::getline(lines, line);) {
      simdjson::dom::parser rp;
      simdjson::dom::element e = rp.parse(line);
      simdjson::dom::array ids;
      if (e["reference_context_ids"].get(ids) || ids.size() == 0) continue;
      std::string list;
      for (auto id : ids)
        list += (list.empty() ? "\"" : ",\"") + std::string(id.get_string().value()) + "\"";
      run_rows << "{\"id\":\"" << std::string_view(e["id"]) << "\",\"retrieved_context_ids\":["
               << list << "],\"reference_context_ids\":[" << list << "]}\n";
    }
  }
  auto recall = RunTala("eval " + dir.path() + "/run.jsonl -m id_based_context_recall -q 2>&1");
  EXPECT_EQ(recall.exit_code, 0) << recall.out;
  EXPECT_NE(recall.out.find("id_based_context_recall   1.0000"), std::string::npos) << recall.out;
  // An empty chunking is refused, and the golden set is not touched.
  std::ofstream(dir.path() + "/empty.jsonl");
  const std::string golden_bytes = Slurp(golden);
  auto empty = RunTala("testset remap " + golden + " --chunks " + dir.path() + "/empty.jsonl 2>&1");
  EXPECT_EQ(empty.exit_code, 2) << empty.out;
  EXPECT_NE(empty.out.find("no chunk was read"), std::string::npos) << empty.out;
  EXPECT_EQ(Slurp(golden), golden_bytes);
  // A chunking without one of the documents: its items are listed with their share of traffic.
  std::ofstream(dir.path() + "/one.jsonl")
      << "{\"id\":\"x\",\"source\":\"x.md\",\"text\":\"Nothing the golden set quotes.\"}\n";
  auto lost = RunTala("testset remap " + golden + " --chunks " + dir.path() + "/one.jsonl -o " +
                      dir.path() + "/lost.jsonl 2>&1");
  EXPECT_EQ(lost.exit_code, 1) << lost.out;
  EXPECT_NE(lost.out.find("whose evidence no chunk holds now, 100.0% of the traffic"),
            std::string::npos)
      << lost.out;
}

// The characters (code points) of UTF-8 `text`.
int64_t CodePoints(std::string_view text) {
  return std::count_if(text.begin(), text.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

// The characters [start, end) of UTF-8 `text`, counted in code points.
std::string Characters(const std::string& text, int64_t start, int64_t end) {
  std::string out;
  int64_t n = -1;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
    if (n >= start && n < end) out += c;
  }
  return out;
}

// Issue 53 item 5: each quote keeps its document and character span, and a remap finds the quote
// at that place, not at an earlier occurrence of the same words.
TEST(TestsetCliTest, QuotesSayWhereTheyStandAndRemapFindsRepeatedWordsThere) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/docs");
  // The same sentence closes two sections; accented and CJK text before it counts as characters.
  const std::string manual =
      "# Café remote (リモコン)\n\n## Pairing the remote\n\nHold the Home button for five seconds. "
      "The light blinks blue when the remote is paired with the TV.\nPress the Home button to "
      "return to the main screen.\n\n## Wall mounting\n\nThe TV fits a VESA 300 by 300 mount. Use "
      "M6 screws that are 12 millimetres long.\nPress the Home button to return to the main "
      "screen.\n\n## Sound\n\nThe TV has two 10 watt speakers. Bluetooth headphones can be paired "
      "in the sound menu.\n";
  std::ofstream(dir.path() + "/docs/manual.md") << manual;
  {
    std::ofstream log(dir.path() + "/log.jsonl");
    const char* asked[] = {"What screws does the wall mount need?",
                           "what screws for the wall mount", "How many watts are the speakers?",
                           "how many watts do the speakers have"};
    for (int k = 0; k < 12; ++k) {
      log << "{\"id\":\"q" << k << "\",\"user_input\":\"" << asked[k % 4] << "\"}\n";
    }
  }
  const std::string candidates = dir.path() + "/candidates.jsonl";
  auto built = RunTala("testset --logs " + dir.path() + "/log.jsonl --docs " + dir.path() +
                       "/docs --size 2 -o " + candidates + " --no-progress 2>&1");
  ASSERT_EQ(built.exit_code, 0) << built.out;
  int64_t quotes = 0;
  {
    std::istringstream lines(Slurp(candidates));
    for (std::string line; std::getline(lines, line);) {
      simdjson::dom::parser p;
      for (simdjson::dom::element q : p.parse(line)["metadata"]["quotes"].get_array()) {
        ++quotes;
        EXPECT_EQ(std::string_view(q["document"]), "manual.md");
        const std::string text{std::string_view(q["text"])};
        EXPECT_EQ(Characters(manual, int64_t(q["start"]), int64_t(q["end"])), text) << line;
      }
    }
  }
  EXPECT_GE(quotes, 2);

  // A golden set whose quote is the second "Press the Home button..." (the wall-mount section's),
  // once with its place and once without.
  const std::string repeated = "Press the Home button to return to the main screen.";
  const size_t second_byte = manual.find(repeated, manual.find(repeated) + 1);
  const int64_t second = CodePoints(manual.substr(0, second_byte));
  ASSERT_EQ(Characters(manual, second, second + 51), repeated);
  auto golden_row = [&](const std::string& id, const std::string& place) {
    return "{\"id\":\"" + id + "\",\"user_input\":\"Back to the main screen after mounting?\"," +
           "\"reference\":\"" + repeated + "\",\"reference_contexts\":[\"x\"]," +
           "\"reference_context_ids\":[\"manual.md#1\"],\"metadata\":{\"doc\":\"manual.md\"," +
           "\"log_ids\":[\"a\"],\"quotes\":[{\"context_id\":\"manual.md#1\",\"text\":\"" +
           repeated + "\"" + place + "}]}}\n";
  };
  const std::string golden = dir.path() + "/golden.jsonl";
  std::ofstream(golden) << golden_row("placed", ",\"document\":\"manual.md\",\"start\":" +
                                                    std::to_string(second) +
                                                    ",\"end\":" + std::to_string(second + 51))
                        << golden_row("unplaced", "");
  // Onto the folder cut finer, and onto an application's chunks that say where they start.
  const std::string app_chunks = dir.path() + "/app.jsonl";
  {
    std::ofstream out(app_chunks);
    int64_t chars = 0;
    for (size_t at = 0, n = 0; at < manual.size(); ++n) {
      size_t end = manual.find(' ', std::min(manual.size(), at + 50));
      end = end == std::string::npos ? manual.size() : end;
      std::string piece = manual.substr(at, end - at), escaped;
      for (char c : piece) escaped += c == '\n' ? std::string("\\n") : std::string(1, c);
      out << "{\"id\":\"app~" << n << "\",\"source\":\"manual.md\",\"start\":" << chars
          << ",\"text\":\"" << escaped << "\"}\n";
      chars += CodePoints(piece);
      at = end;
    }
  }
  for (const std::string& chunks : {dir.path() + "/docs --chunk-chars 60", app_chunks}) {
    const std::string remapped = dir.path() + "/remapped.jsonl";
    auto run =
        RunTala("testset remap " + golden + " --chunks " + chunks + " -o " + remapped + " 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.out;
    std::istringstream lines(Slurp(remapped));
    std::string placed, unplaced;
    std::getline(lines, placed);
    std::getline(lines, unplaced);
    simdjson::dom::parser pp, pu;
    simdjson::dom::element a = pp.parse(placed), b = pu.parse(unplaced);
    // The placed quote stays at its place (the wall-mount section), in the chunk that holds it.
    EXPECT_EQ(int64_t(a["metadata"]["quotes"].at(0)["start"]), second) << placed;
    const std::string id(std::string_view(a["metadata"]["quotes"].at(0)["context_id"]));
    if (chunks == app_chunks) {
      std::string contexts;
      for (auto c : a["reference_contexts"].get_array()) contexts += c.get_string().value();
      EXPECT_NE(contexts.find("millimetres"), std::string::npos) << placed;
      // Without its place, the quote goes to the first chunk that holds the words: the pairing
      // section's.
      std::string first;
      for (auto c : b["reference_contexts"].get_array()) first += c.get_string().value();
      EXPECT_NE(first.find("paired"), std::string::npos) << unplaced;
      EXPECT_LT(int64_t(b["metadata"]["quotes"].at(0)["start"]), second) << unplaced;
    } else {
      // tala's own chunk ids say their byte offset: the chunk begins at or before the quote.
      const size_t offset = std::stoul(id.substr(id.find('#') + 1));
      EXPECT_LE(offset, second_byte) << placed;
      EXPECT_GT(offset, manual.find(repeated)) << placed;
    }
  }
  // Hostile places and chunks are refused by file, line and field (exit 2); the golden set is
  // untouched.
  const std::string bytes = Slurp(golden);
  auto refused = [&](const std::string& args, const std::vector<std::string>& said) {
    auto run = RunTala("testset remap " + args + " -o " + dir.path() + "/out.jsonl 2>&1");
    EXPECT_EQ(run.exit_code, 2) << args << ": " << run.out;
    for (const std::string& s : said) EXPECT_NE(run.out.find(s), std::string::npos) << run.out;
  };
  std::ofstream(dir.path() + "/bad.jsonl")
      << golden_row("ok", "")
      << golden_row("bad", ",\"document\":\"manual.md\",\"start\":\"12\",\"end\":3");
  refused(dir.path() + "/bad.jsonl --chunks " + dir.path() + "/docs",
          {"bad.jsonl:2", "metadata.quotes[0].start"});
  std::ofstream(dir.path() + "/backwards.jsonl")
      << golden_row("back", ",\"document\":\"manual.md\",\"start\":40,\"end\":3");
  refused(dir.path() + "/backwards.jsonl --chunks " + dir.path() + "/docs",
          {"metadata.quotes[0].end"});
  std::ofstream(dir.path() + "/badchunks.jsonl")
      << "{\"id\":\"c1\",\"source\":\"manual.md\",\"text\":\"Some text here for you.\"}\n"
      << "{\"id\":\"c2\",\"source\":\"manual.md\",\"start\":-3,\"text\":\"More text.\"}\n";
  refused(golden + " --chunks " + dir.path() + "/badchunks.jsonl", {"badchunks.jsonl:2", "start"});
  refused(golden + " --chunks " + app_chunks + " --chunk-chars 100",
          {"--chunk-chars cuts a folder"});
  EXPECT_EQ(Slurp(golden), bytes);
}

}  // namespace
}  // namespace tala
