// tala serve as users run it: a child process on 127.0.0.1, real HTTP, kill -9 and a restart.

#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "cli/child_process.h"
#include "cli/headless_browser.h"
#include "cli/run_tala.h"
#include "support/temp_dir.h"

namespace tala {
namespace {

using testing::ChildProcess;
using testing::TempDir;

const std::string kTala = std::string(TALA_BINARY_DIR) + "/tala";

std::string Demo() {
  std::ifstream in(std::string(TALA_SOURCE_DIR) + "/examples/data/interactions.jsonl");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Served {
  explicit Served(const std::string& db, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {kTala, "serve", "--db", db, "--port", "0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    child = std::make_unique<ChildProcess>(argv);
    url = child->FirstLine();  // http://127.0.0.1:PORT
    client = std::make_unique<httplib::Client>(url);
  }
  // The summary once no trace waits in the buffer and no sampled row waits to be scored (the
  // scorer runs beside the server).
  std::string SettledSummary(const httplib::Headers& headers = {}) {
    for (int i = 0; i < 600; ++i) {
      auto res = client->Get("/v1/summary?window=1d", headers);
      if (res && res->body.find("\"rows_pending\":0,") != std::string::npos &&
          res->body.find("\"traces_open\":0,") != std::string::npos &&
          res->body.find("\"conversations_open\":0,") != std::string::npos) {
        return res->body;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return "";
  }
  // /metrics once it holds `line` (or after a minute, as it is then).
  std::string MetricsOnce(const std::string& line) {
    std::string body;
    for (int i = 0; i < 600; ++i) {
      auto res = client->Get("/metrics");
      if (res) body = res->body;
      if (body.find(line) != std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return body;
  }
  std::unique_ptr<ChildProcess> child;
  std::string url;
  std::unique_ptr<httplib::Client> client;
};

int64_t Field(const std::string& json, const char* key) {
  simdjson::dom::parser p;
  return int64_t(p.parse(json)[key]);
}

TEST(ServeCommandTest, ScoresTwoThousandRowsAndExposesTheSameMeans) {
  TempDir dir;
  Served s(dir.path() + "/t.sqlite", {"--sample", "1"});
  ASSERT_EQ(s.url.rfind("http://127.0.0.1:", 0), 0u) << s.url;
  const std::string demo = Demo();
  for (int i = 0; i < 100; ++i) {
    // Each batch under ids of its own: a repeated id is stored once.
    std::string batch = demo;
    for (size_t at = batch.find("\"demo-"); at != std::string::npos;
         at = batch.find("\"demo-", at + 1)) {
      batch.insert(at + 1, "b" + std::to_string(i) + "-");
    }
    auto res = s.client->Post("/v1/interactions", batch, "application/x-ndjson");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 202) << res->body;
  }
  std::string summary = s.SettledSummary();
  ASSERT_FALSE(summary.empty());
  EXPECT_EQ(Field(summary, "rows_ingested"), 2200);
  EXPECT_EQ(Field(summary, "rows_scored"), 2200);
  // tala eval's means on the same rows.
  auto eval = testing::RunTala("eval " + std::string(TALA_SOURCE_DIR) +
                               "/examples/data/interactions.jsonl -m "
                               "faithfulness,response_relevancy --json --no-progress -o " +
                               dir.path() + "/r.jsonl");
  simdjson::dom::parser p, q;
  simdjson::dom::element served = p.parse(summary)["metrics"];
  for (simdjson::dom::element m : q.parse(eval.out)["metrics"].get_array()) {
    std::string_view name = m["metric"].get_string();
    EXPECT_NEAR(double(served[name]["mean"]), double(m["mean"]), 1e-9) << name;
  }
  auto metrics = s.client->Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("tala_rows_scored_total 2200\n"), std::string::npos);
  std::string mean = "tala_metric_mean{metric=\"faithfulness\",window=\"1d\"} ";
  size_t at = metrics->body.find(mean);
  ASSERT_NE(at, std::string::npos);
  EXPECT_NEAR(std::stod(metrics->body.substr(at + mean.size())),
              double(served["faithfulness"]["mean"]), 1e-12);
  auto bad = s.client->Post("/v1/interactions", "{\"user_input\": 3}", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("\"field\":\"user_input\""), std::string::npos) << bad->body;
  EXPECT_EQ(s.child->Stop(SIGTERM), 0);
}

TEST(ServeCommandTest, KillNineLosesNothingAcknowledgedAndScoresItOnce) {
  TempDir dir;
  const std::string db = dir.path() + "/t.sqlite";
  int64_t acknowledged = 0;
  {
    Served s(db);
    for (int batch = 0; batch < 5; ++batch) {
      std::string body;
      for (int i = 0; i < 400; ++i) {
        body +=
            "{\"id\":\"k" + std::to_string(batch) + "-" + std::to_string(i) +
            "\",\"user_input\":\"When does the ferry sail?\",\"response\":\"Every 20 minutes.\","
            "\"retrieved_contexts\":[\"The ferry sails every 20 minutes.\"]}\n";
      }
      auto res = s.client->Post("/v1/interactions", body, "application/x-ndjson");
      ASSERT_TRUE(res);
      ASSERT_EQ(res->status, 202);
      acknowledged += 400;
    }
    s.child->Kill(SIGKILL);  // right after the last acknowledgement
  }
  Served again(db);
  std::string summary = again.SettledSummary();
  ASSERT_FALSE(summary.empty());
  EXPECT_EQ(Field(summary, "rows_ingested"), acknowledged);
  EXPECT_EQ(Field(summary, "rows_scored"), acknowledged);
  simdjson::dom::parser p;
  // One value per row and metric: nothing scored twice.
  EXPECT_EQ(int64_t(p.parse(summary)["metrics"]["response_relevancy"]["n"]), acknowledged);
}

// A webhook receiver on 127.0.0.1 that keeps every payload it is sent.
class Receiver {
 public:
  // Answers `status`; with `hang`, each request waits until Release() (a webhook that hangs).
  explicit Receiver(int status = 204, bool hang = false) {
    server_.Post("/hook",
                 [this, status, hang](const httplib::Request& req, httplib::Response& res) {
                   std::unique_lock<std::mutex> lock(mu_);
                   bodies_.push_back(req.body);
                   if (hang) released_cv_.wait(lock, [this] { return released_; });
                   res.status = status;
                 });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~Receiver() {
    Release();
    server_.stop();
    thread_.join();
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    released_cv_.notify_all();
  }
  size_t Count() {
    std::lock_guard<std::mutex> lock(mu_);
    return bodies_.size();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  // Waits (bounded) until `n` payloads came; returns them all.
  std::vector<std::string> Await(size_t n) {
    for (int i = 0; i < 300; ++i) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (bodies_.size() >= n) return bodies_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    std::lock_guard<std::mutex> lock(mu_);
    return bodies_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable released_cv_;
  bool released_ = false;
  std::vector<std::string> bodies_;
};

std::string FerryRows(const std::string& prefix, int n, bool grounded) {
  std::string body;
  for (int i = 0; i < n; ++i) {
    body += "{\"id\":\"" + prefix + std::to_string(i) +
            "\",\"user_input\":\"When does the ferry sail?\",\"response\":\"" +
            (grounded ? "The ferry sails every 20 minutes." : "The ferry sails every 5 minutes.") +
            "\",\"retrieved_contexts\":[\"The ferry sails every 20 minutes.\"]}\n";
  }
  return body;
}

// A shop's production questions: wall mounting (5 asked, in three wordings), paying with PayPal
// (2) and a warranty (1, with a slot's name and markup) have no answer in its documents;
// shipping (3) has. Every row's retriever returned
// the shipping passage.
std::string ShopRows() {
  const std::string shipping = "Standard shipping takes 3 to 5 business days.";
  std::vector<std::string> asked = {"How do I mount the TV on the wall?",
                                    "How do I mount the TV on the wall?",
                                    "how do i mount the tv on the wall",
                                    "How can I mount my TV on a wall?",
                                    "How do I mount the TV on the wall?",
                                    "How long does shipping take?",
                                    "How long does shipping take?",
                                    "how long does standard shipping take?",
                                    "Can I pay with PayPal?",
                                    "can i pay with paypal",
                                    "Is there a warranty on the remote? @METRICS@ </script><b>"};
  std::string body;
  for (size_t i = 0; i < asked.size(); ++i) {
    // (No question holds a quote or a backslash: each is its own JSON string.)
    body += "{\"id\":\"shop" + std::to_string(i) + "\",\"user_input\":\"" + asked[i] + "\"" +
            ",\"response\":\"Sorry.\",\"retrieved_contexts\":[\"" + shipping + "\"]}\n";
  }
  return body;
}

std::vector<std::pair<std::string, int64_t>> GapList(const std::string& json) {
  simdjson::dom::parser p;
  std::vector<std::pair<std::string, int64_t>> out;
  for (simdjson::dom::element g : p.parse(json)["gaps"]["intents"].get_array()) {
    out.emplace_back(std::string(std::string_view(g["question"])), int64_t(g["questions"]));
  }
  return out;
}

TEST(ServeCommandTest, GapsListTheIntentsNothingAnswersMostAskedFirst) {
  TempDir dir;
  std::filesystem::create_directory(dir.path() + "/docs");
  dir.Write("docs/shipping.md",
            "# Shipping\n\nStandard shipping takes 3 to 5 business days. Express shipping arrives "
            "the next business day.\n");
  dir.Write("docs/returns.md",
            "# Returns\n\nReturns are accepted within 30 days of delivery. Refunds go back to the "
            "card you paid with.\n");
  using Gaps = std::vector<std::pair<std::string, int64_t>>;
  const Gaps expected = {{"How do I mount the TV on the wall?", 5},
                         {"Can I pay with PayPal?", 2},
                         {"Is there a warranty on the remote? @METRICS@ </script><b>", 1}};
  // Against the documents, and (no --docs) against the passages retrieved for each question:
  // here the same list, as the retriever returned the one passage that answers shipping.
  for (bool docs : {true, false}) {
    SCOPED_TRACE(docs ? "--docs" : "retrieved passages");
    std::vector<std::string> extra;
    if (docs) extra = {"--docs", dir.path() + "/docs"};
    Served s(dir.path() + (docs ? "/docs.sqlite" : "/rows.sqlite"), extra);
    auto res = s.client->Post("/v1/interactions", ShopRows(), "application/x-ndjson");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 202);
    auto gaps = s.client->Get("/v1/gaps?window=1d");
    ASSERT_TRUE(gaps);
    ASSERT_EQ(gaps->status, 200) << gaps->body;
    EXPECT_EQ(GapList(gaps->body), expected) << gaps->body;
    EXPECT_EQ(Field(gaps->body, "questions"), 11);
    EXPECT_NE(
        gaps->body.find(docs ? "\"against\":\"documents\"" : "\"against\":\"retrieved passages\""),
        std::string::npos);
    // Bad queries are refused, naming what is wrong; the server goes on.
    for (const char* bad : {"/v1/gaps?limit=abc", "/v1/gaps?limit=0", "/v1/gaps?limit=99999999",
                            "/v1/gaps?window=fortnight"}) {
      auto r = s.client->Get(bad);
      ASSERT_TRUE(r);
      EXPECT_EQ(r->status, 400) << bad;
      EXPECT_TRUE(r->body.find("limit") != std::string::npos ||
                  r->body.find("window") != std::string::npos)
          << r->body;
    }
    if (docs) {
      // The dashboard lists them too; a question holding a slot's name and markup stays text,
      // and so does a run labelled with one (the runs' frame was filled before the scripts'
      // slots, and the page broke).
      ASSERT_FALSE(s.SettledSummary().empty());
      const std::string results = dir.path() + "/r.jsonl";
      auto eval = testing::RunTala("eval " + std::string(TALA_SOURCE_DIR) +
                                   "/examples/data/interactions.jsonl -m faithfulness "
                                   "--no-progress -o " +
                                   results + " 2>&1");
      ASSERT_EQ(eval.exit_code, 0) << eval.out;
      auto added = testing::RunTala("history add " + results + " --store " + s.url +
                                    " --label @METRICS@ 2>&1");
      ASSERT_EQ(added.exit_code, 0) << added.out;
      auto page = s.client->Get("/");
      ASSERT_TRUE(page);
      std::string html = dir.Write("dashboard.html", page->body);
      std::string dom = testing::DumpDom("file://" + html + "#selftest");
      size_t at = dom.find("SELFTEST ranges");
      ASSERT_NE(at, std::string::npos) << "the self-test did not run";
      const std::string result = dom.substr(at, dom.find('<', at) - at);
      EXPECT_NE(result.find(" gaps=3 "), std::string::npos) << result;
      EXPECT_NE(result.find(" runs=1 shown labels=@METRICS@ "), std::string::npos) << result;
      EXPECT_NE(result.find("errors=0"), std::string::npos) << result;
      EXPECT_NE(dom.find("How do I mount the TV on the wall?"), std::string::npos);
    }
    EXPECT_EQ(s.child->Stop(SIGTERM), 0);
  }
  // Documents that cannot be read stop the start: no address is printed, the exit is not 0.
  ChildProcess bad({kTala, "serve", "--db", dir.path() + "/bad.sqlite", "--port", "0", "--docs",
                    dir.path() + "/no-such-folder"});
  EXPECT_EQ(bad.FirstLine(), "");
  EXPECT_NE(bad.Stop(SIGTERM), 0);
}

TEST(ServeCommandTest, AnAlertRuleFiresOnceAndClearsAtTheWebhook) {
  TempDir dir;
  Receiver hook;
  std::string config = dir.Write("tala.toml",
                                 "[serve]\nsample = 1\n\n[[serve.alerts]]\n"
                                 "when = \"faithfulness.mean_1d < 0.70\"\n"
                                 "min_rows = 10\nwebhook = \"" +
                                     hook.url() + "\"\n");
  Served s(dir.path() + "/t.sqlite", {"--config", config});
  auto post = [&](const std::string& body) {
    auto res = s.client->Post("/v1/interactions", body, "application/x-ndjson");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 202) << res->body;
    ASSERT_FALSE(s.SettledSummary().empty());
  };
  post(FerryRows("bad", 10, false));
  auto events = hook.Await(1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].find("\"event\":\"fired\""), std::string::npos) << events[0];
  post(FerryRows("good", 40, true));  // mean 0.8: back past 0.72
  events = hook.Await(2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_NE(events[1].find("\"event\":\"cleared\""), std::string::npos) << events[1];
  auto alerts = s.client->Get("/v1/alerts");
  ASSERT_TRUE(alerts);
  EXPECT_NE(alerts->body.find("\"firing\":false"), std::string::npos) << alerts->body;
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // a further check: no repeat
  EXPECT_EQ(hook.Await(2).size(), 2u);
}

// POST /v1/labels (issue 55 item 4): the review page's labels of served rows; the window's
// summary then shows each metric's mean corrected by them, the same as tala estimate on the
// same rows (fetched from /v1/rows) and the same labels.
TEST(ServeCommandTest, LabelsCorrectTheWindowMeanAsTalaEstimateDoes) {
  TempDir dir;
  Served s(dir.path() + "/t.sqlite");
  auto res =
      s.client->Post("/v1/interactions", FerryRows("bad", 4, false) + FerryRows("good", 8, true),
                     "application/x-ndjson");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 202);
  ASSERT_FALSE(s.SettledSummary().empty());
  // A person reads two "bad" answers as fine after all and agrees with the judge on three rows.
  const std::string labels =
      "{\"tala_labels\":{\"pick\":\"random\",\"seed\":1,\"metric\":\"faithfulness\"}}\n"
      "{\"id\":\"bad0\",\"faithfulness\":1}\n{\"id\":\"bad1\",\"faithfulness\":1}\n"
      "{\"id\":\"bad2\",\"faithfulness\":0}\n{\"id\":\"good0\",\"faithfulness\":1}\n"
      "{\"id\":\"good1\",\"faithfulness\":1}\n";
  auto posted = s.client->Post("/v1/labels", labels, "application/x-ndjson");
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->status, 200) << posted->body;
  EXPECT_EQ(posted->body, "{\"stored\":5,\"unknown_ids\":0}");
  auto summary = s.client->Get("/v1/summary?window=1d");
  ASSERT_TRUE(summary);
  simdjson::dom::parser p;
  auto corrected = p.parse(summary->body)["metrics"]["faithfulness"]["corrected"];
  ASSERT_FALSE(corrected.error()) << summary->body;
  EXPECT_EQ(int64_t(corrected["labels"]), 5);
  // tala estimate on the same rows and labels.
  auto rows = s.client->Get("/v1/rows?since=0");
  ASSERT_TRUE(rows);
  const std::string results = dir.Write("rows.jsonl", rows->body);
  auto estimate =
      testing::RunTala("estimate " + results + " --labels " + dir.Write("labels.jsonl", labels) +
                       " --metric faithfulness --json 2>&1");
  ASSERT_EQ(estimate.exit_code, 0) << estimate.out;
  simdjson::dom::parser e;
  auto est = e.parse(estimate.out);
  // tala estimate prints six decimals.
  EXPECT_NEAR(double(corrected["mean"]), double(est["ppi_mean"]), 1e-6) << estimate.out;
  EXPECT_NEAR(double(corrected["ci"].at(0)), double(est["ppi_ci"].at(0)), 1e-6);
  // A label of a metric the server does not score is refused, and says so.
  auto bad = s.client->Post("/v1/labels", "{\"id\":\"bad3\",\"context_recall\":1}\n",
                            "application/x-ndjson");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("not a metric this server scores"), std::string::npos) << bad->body;
  EXPECT_EQ(s.child->Stop(SIGTERM), 0);
}

TEST(ServeCommandTest, FailingRowsComeBackOverHttpAndAsADatasetFile) {
  TempDir dir;
  const std::string db = dir.path() + "/t.sqlite";
  {
    Served s(db);
    auto res =
        s.client->Post("/v1/interactions", FerryRows("bad", 3, false) + FerryRows("good", 5, true),
                       "application/x-ndjson");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 202);
    ASSERT_FALSE(s.SettledSummary().empty());
    auto rows = s.client->Get("/v1/rows?metric=faithfulness&max_score=0.5&since=0");
    ASSERT_TRUE(rows);
    EXPECT_EQ(rows->status, 200);
    EXPECT_EQ(std::count(rows->body.begin(), rows->body.end(), '\n'), 3);
    EXPECT_NE(rows->body.find("\"scores\":{\"faithfulness\":"), std::string::npos);
    auto bad = s.client->Get("/v1/rows?max_score=0.5");
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400);
    EXPECT_EQ(s.child->Stop(SIGTERM), 0);
  }
  const std::string out = dir.path() + "/golden.jsonl";
  auto exported = testing::RunTala("export " + db + " --metric faithfulness --max-score 0.5 -o " +
                                   out + " 2>&1");
  ASSERT_EQ(exported.exit_code, 0) << exported.out;
  EXPECT_NE(exported.out.find("3 rows written"), std::string::npos) << exported.out;
  auto eval = testing::RunTala("eval " + out + " -m faithfulness --no-progress -o " + dir.path() +
                               "/r.jsonl 2>&1");
  EXPECT_EQ(eval.exit_code, 0) << eval.out;
  EXPECT_NE(eval.out.find("rows: 3 scored"), std::string::npos) << eval.out;
}

// One turn of a session as two OTLP spans: the model call (the root, ended, with the session's
// id as OpenInference or the GenAI conventions name it) and its retrieval (a child). Apart, so
// that a request can carry either.
struct TurnSpans {
  std::string root, retrieval;
};
TurnSpans SessionTurn(int session, int turn, const std::string& answer) {
  char trace[33];
  std::snprintf(trace, sizeof trace, "%016x%016x", 0x5e55, session * 10 + turn);
  const std::string key = session % 2 == 0 ? "gen_ai.conversation.id" : "session.id";
  const std::string end =
      std::to_string((static_cast<int64_t>(std::time(nullptr)) - 120 + turn) * int64_t{1000000000});
  const std::string fact = "Locker " + std::to_string(turn) + " of hall " +
                           std::to_string(session) + " opens at " + std::to_string(6 + turn) +
                           " am.";
  TurnSpans t;
  t.root =
      R"({"traceId":")" + std::string(trace) + R"(","spanId":"a","endTimeUnixNano":")" + end +
      R"(","attributes":[{"key":")" + key + R"(","value":{"stringValue":"s-)" +
      std::to_string(session) +
      R"("}},{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},)"
      R"({"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"When does locker )" +
      std::to_string(turn) + " of hall " + std::to_string(session) +
      R"( open?\"}]}]"}},)"
      R"({"key":"gen_ai.output.messages","value":{"stringValue":"[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\")" +
      answer + R"(\"}]}]"}}]})";
  t.retrieval = R"({"traceId":")" + std::string(trace) +
                R"(","spanId":"b","parentSpanId":"a","attributes":[)"
                R"({"key":"gen_ai.operation.name","value":{"stringValue":"retrieval"}},)"
                R"({"key":"gen_ai.retrieval.documents","value":{"stringValue":"[{\"id\":\"d)" +
                std::to_string(turn) + R"(\",\"content\":\")" + fact + R"(\"}]"}}]})";
  return t;
}

std::string SpansRequest(const std::vector<std::string>& spans) {
  std::string out = R"({"resourceSpans":[{"scopeSpans":[{"spans":[)";
  for (size_t i = 0; i < spans.size(); ++i) out += (i ? "," : "") + spans[i];
  return out + "]}]}]}";
}

// Issue 54's serve target: 50 sessions of 4 turns, one trace a turn, each trace's spans split
// over two requests and the sessions' turns interleaved, become 50 conversations of 4 turns in
// order, each scored once, turn by turn; and rows with a conversation_id join the same way.
TEST(ServeCommandTest, SessionsBecomeConversationsScoredTurnByTurn) {
  TempDir dir;
  Served s(dir.path() + "/t.sqlite", {"--trace-linger", "1", "--session-quiet", "3", "-m",
                                      "turn_faithfulness,turn_context_recall,knowledge_retention"});
  for (int half = 0; half < 2; ++half) {
    std::vector<std::string> roots, retrievals;
    for (int turn = 1 + 2 * half; turn <= 2 + 2 * half; ++turn) {
      for (int session = 0; session < 50; ++session) {
        // Session 0's third answer invents its hour: the turn the conversation breaks at.
        const std::string answer = session == 0 && turn == 3
                                       ? "Locker 3 opens at midnight and stays open all weekend."
                                       : "Locker " + std::to_string(turn) + " of hall " +
                                             std::to_string(session) + " opens at " +
                                             std::to_string(6 + turn) + " am.";
        TurnSpans t = SessionTurn(session, turn, answer);
        roots.push_back(t.root);
        retrievals.push_back(t.retrieval);
      }
    }
    for (const auto* spans : {&retrievals, &roots}) {
      auto res = s.client->Post("/v1/traces", SpansRequest(*spans), "application/json");
      ASSERT_TRUE(res);
      ASSERT_EQ(res->status, 200) << res->body;
    }
  }
  // Turns as rows, out of order over two requests: `turn` orders them.
  auto turn_row = [](int turn, const std::string& question, const std::string& answer) {
    return R"({"conversation_id":"chat-json","turn":)" + std::to_string(turn) +
           R"(,"user_input":")" + question + R"(","response":")" + answer +
           R"(","retrieved_contexts":["The gym opens at 6 am and closes at 10 pm."]})" + "\n";
  };
  auto rows = s.client->Post("/v1/interactions",
                             turn_row(2, "And when does it close?", "It closes at 10 pm."),
                             "application/x-ndjson");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->status, 202) << rows->body;
  rows = s.client->Post("/v1/interactions",
                        turn_row(1, "When does the gym open?", "The gym opens at 6 am."),
                        "application/x-ndjson");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->status, 202) << rows->body;
  // A repeated turn (a retried request) is stored once.
  rows = s.client->Post("/v1/interactions",
                        turn_row(1, "When does the gym open?", "The gym opens at 6 am."),
                        "application/x-ndjson");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->status, 202) << rows->body;
  // Hostile turn rows are refused, naming the field.
  for (const auto& [body, field] : std::vector<std::pair<std::string, std::string>>{
           {R"({"conversation_id":{},"user_input":"q","response":"a"})", "conversation_id"},
           {R"({"conversation_id":"c","turn":"two","user_input":"q","response":"a"})", "turn"},
           {R"({"conversation_id":"c","user_input":[{"type":"human","content":"q"}]})",
            "user_input"}}) {
    auto bad = s.client->Post("/v1/interactions", body, "application/json");
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400) << body;
    EXPECT_NE(bad->body.find("\"field\":\"" + field + "\""), std::string::npos) << bad->body;
  }
  std::string summary = s.SettledSummary();
  ASSERT_FALSE(summary.empty());
  EXPECT_EQ(Field(summary, "rows_ingested"), 51) << summary;
  EXPECT_EQ(Field(summary, "rows_scored"), 51) << summary;
  EXPECT_EQ(Field(summary, "turns_open"), 0) << summary;
  EXPECT_EQ(Field(summary, "conversations"), 51) << summary;
  EXPECT_EQ(Field(summary, "turns"), 202) << summary;
  auto listed = s.client->Get("/v1/rows?since=0&limit=1000");
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->status, 200);
  simdjson::dom::parser p;
  std::set<std::string> ids;
  std::istringstream lines(listed->body);
  std::string line;
  while (std::getline(lines, line)) {
    simdjson::dom::element row = p.parse(line);
    std::string id(row["id"].get_string().value());
    ids.insert(id);
    simdjson::dom::array turns = row["turns"].get_array();
    if (id == "chat-json") {
      ASSERT_EQ(turns.size(), 2u) << line;
      EXPECT_EQ(std::string_view(turns.at(0)["question"].get_string().value()),
                "When does the gym open?");
      continue;
    }
    ASSERT_EQ(turns.size(), 4u) << line;
    int turn = 0;
    for (simdjson::dom::element t : turns) {
      ++turn;
      std::string question(t["question"].get_string().value());
      EXPECT_NE(question.find("locker " + std::to_string(turn) + " of"), std::string::npos) << line;
    }
    int64_t failing = 0;
    if (row["first_failing_turn"].get_int64().get(failing) != simdjson::SUCCESS) failing = 0;
    EXPECT_EQ(failing, id == "s-0" ? 3 : 0) << line;
  }
  EXPECT_EQ(ids.size(), 51u);
  EXPECT_TRUE(ids.count("s-0") && ids.count("s-49") && ids.count("chat-json"));
  auto metrics = s.client->Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("tala_conversations_open 0\n"), std::string::npos);
  EXPECT_NE(metrics->body.find("tala_conversations_total 51\n"), std::string::npos);
  EXPECT_NE(metrics->body.find("tala_conversation_turns_total 202\n"), std::string::npos);
  EXPECT_EQ(s.child->Stop(SIGTERM), 0);
}

// Spans that come after their trace became a turn waiting for its conversation are refused in
// OTLP's partialSuccess, as for a trace that became a row.
TEST(ServeCommandTest, LateSpansOfATurnWaitingForItsConversationAreRefused) {
  TempDir dir;
  Served s(dir.path() + "/t.sqlite",
           {"--trace-linger", "0", "--trace-timeout", "0", "--session-quiet", "600"});
  TurnSpans t = SessionTurn(3, 1, "Locker 1 of hall 3 opens at 7 am.");
  auto res = s.client->Post("/v1/traces", SpansRequest({t.root, t.retrieval}), "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  std::string waiting;
  for (int i = 0; i < 600; ++i) {
    auto summary = s.client->Get("/v1/summary?window=1d");
    if (summary && summary->body.find("\"traces_open\":0,\"conversations_open\":1,"
                                      "\"turns_open\":1,") != std::string::npos) {
      waiting = summary->body;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(waiting.empty());
  auto late = s.client->Post("/v1/traces", SpansRequest({t.retrieval}), "application/json");
  ASSERT_TRUE(late);
  EXPECT_EQ(late->status, 200);
  EXPECT_NE(late->body.find("\"partialSuccess\":{\"rejectedSpans\":1,"), std::string::npos)
      << late->body;
  EXPECT_EQ(s.child->Stop(SIGTERM), 0);
}

// A conversation's acknowledged turns outlive kill -9, and a restart makes the row of each
// conversation that went quiet while the server was down.
TEST(ServeCommandTest, TurnsWaitingForTheirConversationOutliveKillNine) {
  TempDir dir;
  const std::string db = dir.path() + "/t.sqlite";
  auto turn = [](int n, const std::string& q, const std::string& a) {
    return R"({"id":"t)" + std::to_string(n) + R"(","conversation_id":7,"user_input":")" + q +
           R"(","response":")" + a +
           R"(","retrieved_contexts":["The pool opens at 7 am; swimming caps are required."]})" +
           "\n";
  };
  {
    Served s(db, {"--session-quiet", "600"});
    auto res = s.client->Post("/v1/interactions",
                              turn(1, "When does the pool open?", "At 7 am.") +
                                  turn(2, "Do I need a cap?", "Yes, caps are required."),
                              "application/x-ndjson");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 202) << res->body;
    EXPECT_NE(res->body.find("\"turns_held\":2"), std::string::npos) << res->body;
    auto waiting = s.client->Get("/v1/summary?window=1d");
    ASSERT_TRUE(waiting);
    EXPECT_NE(waiting->body.find("\"conversations_open\":1,\"turns_open\":2"), std::string::npos)
        << waiting->body;
    s.child->Kill(SIGKILL);
  }
  Served s(db, {"--session-quiet", "0", "-m", "turn_faithfulness"});
  std::string summary = s.SettledSummary();
  ASSERT_FALSE(summary.empty());
  EXPECT_EQ(Field(summary, "rows_scored"), 1) << summary;
  auto rows = s.client->Get("/v1/rows?since=0");
  ASSERT_TRUE(rows);
  EXPECT_NE(rows->body.find("\"id\":\"7\""), std::string::npos) << rows->body;
  EXPECT_NE(rows->body.find("\"turn_faithfulness\":1"), std::string::npos) << rows->body;
  EXPECT_NE(rows->body.find("\"question\":\"Do I need a cap?\""), std::string::npos) << rows->body;
}

TEST(ServeCommandTest, OtlpTracesAreScoredLikeInteractions) {
  TempDir dir;
  // Spans without an end (and so no ended root): closed at once by a timeout of 0.
  Served s(dir.path() + "/t.sqlite", {"--trace-linger", "0", "--trace-timeout", "0"});
  std::string span =
      R"({"resourceSpans":[{"scopeSpans":[{"spans":[)"
      R"({"traceId":"5b8efff798038103d269b633813fc60c","spanId":"1","attributes":[)"
      R"({"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},)"
      R"({"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"When does the ferry sail?\"}]}]"}},)"
      R"({"key":"gen_ai.output.messages","value":{"stringValue":"[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"Every 20 minutes.\"}]}]"}}]},)"
      R"({"traceId":"5b8efff798038103d269b633813fc60c","spanId":"2","attributes":[)"
      R"({"key":"gen_ai.operation.name","value":{"stringValue":"retrieval"}},)"
      R"({"key":"gen_ai.retrieval.documents","value":{"stringValue":"[{\"id\":\"ferry\",\"content\":\"The ferry sails every 20 minutes.\"}]"}}]})"
      R"(]}]}]})";
  auto res = s.client->Post("/v1/traces", span, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  EXPECT_NE(res->body.find("\"accepted\":2"), std::string::npos) << res->body;  // spans
  std::string summary = s.SettledSummary();
  EXPECT_EQ(Field(summary, "rows_scored"), 1);
  simdjson::dom::parser p;
  EXPECT_EQ(double(p.parse(summary)["metrics"]["faithfulness"]["mean"]), 1.0) << summary;
  auto bad = s.client->Post("/v1/traces", "{}", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  // A trace with no question or answer gives no row, counted by reason once it is closed.
  std::string retrieval_only =
      R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"77","spanId":"1","attributes":[)"
      R"({"key":"gen_ai.operation.name","value":{"stringValue":"retrieval"}}]}]}]}]})";
  auto dropped = s.client->Post("/v1/traces", retrieval_only, "application/json");
  ASSERT_TRUE(dropped);
  EXPECT_EQ(dropped->status, 200);
  ASSERT_FALSE(s.SettledSummary().empty());
  // Spans of a trace that is a row already are refused in OTLP's partialSuccess.
  auto late = s.client->Post("/v1/traces", span, "application/json");
  ASSERT_TRUE(late);
  EXPECT_EQ(late->status, 200);
  EXPECT_NE(late->body.find("\"partialSuccess\":{\"rejectedSpans\":2,"), std::string::npos)
      << late->body;
  auto metrics = s.client->Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("tala_traces_received_total 2\n"), std::string::npos);
  EXPECT_NE(metrics->body.find("tala_traces_dropped_total{reason=\"no_question_or_answer\"} 1\n"),
            std::string::npos)
      << metrics->body;
}

// An SDK exports a trace's spans as they end, in batches: here the retrieval span, then the
// model call, then the root, in three requests, with a kill -9 between the second and the third.
TEST(ServeCommandTest, SpansOfOneTraceInThreeRequestsBecomeOneRowWithItsDocuments) {
  TempDir dir;
  const std::string db = dir.path() + "/t.sqlite";
  const std::string end = std::to_string(static_cast<int64_t>(std::time(nullptr))) + "000000000";
  auto request = [&](const std::string& id, const std::string& parent,
                     const std::string& attributes) {
    return R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":)"
           R"({"stringValue":"ferry-bot"}}]},"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":")" +
           id + R"(","parentSpanId":")" + parent + R"(","endTimeUnixNano":")" + end +
           R"(","attributes":[)" + attributes + "]}]}]}]}";
  };
  const std::string retrieval = request(
      "b7ad6b7169203331", "00f067aa0ba902b7",
      R"({"key":"gen_ai.operation.name","value":{"stringValue":"retrieval"}},)"
      R"({"key":"gen_ai.retrieval.documents","value":{"stringValue":"[{\"id\":\"timetable#2\",\"content\":\"The ferry sails every 20 minutes from Pier 3.\"}]"}})");
  const std::string chat = request(
      "c8be7c8270314442", "00f067aa0ba902b7",
      R"({"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},)"
      R"({"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"When does the ferry sail?\"}]}]"}},)"
      R"({"key":"gen_ai.output.messages","value":{"stringValue":"[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"Every 20 minutes, from Pier 3.\"}]}]"}})");
  const std::string root =
      request("00f067aa0ba902b7", "", R"({"key":"http.route","value":{"stringValue":"/ask"}})");
  {
    Served s(db, {"--trace-linger", "1"});
    for (const std::string* body : {&retrieval, &chat}) {
      auto res = s.client->Post("/v1/traces", *body, "application/json");
      ASSERT_TRUE(res);
      ASSERT_EQ(res->status, 200) << res->body;
      EXPECT_NE(res->body.find("\"accepted\":1"), std::string::npos) << res->body;
    }
    s.child->Kill(SIGKILL);  // the spans were acknowledged: they must outlive the process
  }
  Served s(db, {"--trace-linger", "1"});
  auto res = s.client->Post("/v1/traces", root, "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  std::string summary = s.SettledSummary();
  ASSERT_FALSE(summary.empty());
  EXPECT_EQ(Field(summary, "rows_ingested"), 1) << summary;
  EXPECT_EQ(Field(summary, "rows_scored"), 1) << summary;
  auto rows = s.client->Get("/v1/rows?since=0");
  ASSERT_TRUE(rows);
  EXPECT_NE(rows->body.find("The ferry sails every 20 minutes from Pier 3."), std::string::npos)
      << rows->body;
  EXPECT_NE(rows->body.find("Every 20 minutes, from Pier 3."), std::string::npos) << rows->body;
  std::string metrics = s.MetricsOnce("tala_traces_received_total 1\n");
  EXPECT_NE(metrics.find("tala_traces_received_total 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("tala_traces_open 0\n"), std::string::npos) << metrics;
}

TEST(ServeCommandTest, TheDashboardChecksItselfInAHeadlessBrowser) {
  TempDir dir;
  std::string config = dir.Write("tala.toml",
                                 "[[serve.alerts]]\n"
                                 "when = \"faithfulness.mean_1d < 0.9\"\n"
                                 "min_rows = 5\n");
  Served s(dir.path() + "/t.sqlite", {"--config", config});
  auto res = s.client->Post("/v1/interactions", Demo(), "application/x-ndjson");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 202);
  ASSERT_FALSE(s.SettledSummary().empty());
  auto alerts = s.client->Get("/v1/alerts");  // the rule has fired by the next check
  for (int i = 0; i < 50 && alerts && alerts->body.find("\"fired\"") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    alerts = s.client->Get("/v1/alerts");
  }
  auto page = s.client->Get("/");
  ASSERT_TRUE(page);
  ASSERT_EQ(page->status, 200);
  for (const char* fetch : {"src=\"http", "href=\"http", "fetch(", "XMLHttpRequest", "<link"}) {
    EXPECT_EQ(page->body.find(fetch), std::string::npos)
        << "the dashboard must not fetch: " << fetch;
  }
  std::string html = dir.Write("dashboard.html", page->body);
  std::string dom = testing::DumpDom("file://" + html + "#selftest");
  size_t at = dom.find("SELFTEST ranges");
  ASSERT_NE(at, std::string::npos) << "the self-test did not run";
  // Both ranges draw (the week's 84 bars, back to the day's), with a tick every 3 hours over
  // the day and every midnight over the week. Two of the demo's questions have no answer in the
  // passages retrieved for them (when Larkspur Transit was founded; how long a ticket is valid
  // for transfers).
  EXPECT_EQ(dom.substr(at, dom.find('<', at) - at),
            "SELFTEST ranges=1 ticks=8,7 charts=1 mix=1 traffic=1 alerts=1 gaps=2 drilldown=1 "
            "runs=0 shown labels= errors=0");
  EXPECT_NE(dom.find("faithfulness.mean_1d &lt; 0.9"), std::string::npos) << "the alert is listed";
}

TEST(ServeCommandTest, LimitsAnswer413WithTheReason) {
  TempDir dir;
  Served s(dir.path() + "/t.sqlite",
           {"--max-pending", "6", "--max-body-bytes", "4000", "--max-rows-per-request", "6"});
  // (A backlog never refuses rows: tested on the engine, where no scorer drains it.)
  auto rows = s.client->Post("/v1/interactions", FerryRows("b", 7, true), "application/x-ndjson");
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->status, 413);
  EXPECT_NE(rows->body.find("at most 6 per request"), std::string::npos) << rows->body;
  auto big = s.client->Post("/v1/interactions", std::string(5000, ' '), "application/x-ndjson");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_NE(big->body.find("--max-body-bytes"), std::string::npos) << big->body;
  auto fits = s.client->Post("/v1/interactions", FerryRows("c", 2, true), "application/x-ndjson");
  ASSERT_TRUE(fits);
  EXPECT_EQ(fits->status, 202) << fits->body;
}

// Prometheus' own linter reads the scrape: histograms, tags with a quote and a newline in their
// values, HTTP and process series. promtool comes with `make test-deps` (Debian's prometheus).
TEST(ServeCommandTest, PromtoolChecksTheScrapeAndFindsNothing) {
  ASSERT_EQ(std::system("command -v promtool > /dev/null"), 0)
      << "promtool is missing: make test-deps installs it";
  TempDir dir;
  Served s(dir.path() + "/t.sqlite", {"--sample", "1", "--tag-key", "route"});
  std::string body = FerryRows("p", 6, true);
  for (size_t at = body.find("\"id\""); at != std::string::npos; at = body.find("\"id\"", at + 1)) {
    body.insert(at, "\"tags\":{\"route\":\"a \\\"b\\\"\\nc\"},");
    at += 30;
  }
  auto res = s.client->Post("/v1/interactions", body, "application/x-ndjson");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 202) << res->body;
  ASSERT_FALSE(s.SettledSummary().empty());
  auto scrape = s.client->Get("/metrics");
  ASSERT_TRUE(scrape);
  ASSERT_EQ(scrape->status, 200);
  EXPECT_NE(scrape->body.find("tag_value=\"a \\\"b\\\"\\nc\""), std::string::npos) << scrape->body;
  EXPECT_NE(
      scrape->body.find("tala_http_requests_total{route=\"/v1/interactions\",code=\"202\"} 1"),
      std::string::npos)
      << scrape->body;
  std::string file = dir.Write("scrape.txt", scrape->body);
  std::FILE* pipe = popen(("promtool check metrics < " + file + " 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string said;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) said.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0) << said;
  EXPECT_EQ(said, "") << said;
}

// Alerts are delivered on a thread of their own: a webhook that never answers leaves scoring
// at full speed (before, each delivery attempt held the scorer for its 5 s timeout: 640 rows,
// 10 passes, took 50 s), and one that answers 500 is retried with backoff, not 20 times a second.
TEST(ServeCommandTest, AHangingOrFailingWebhookNeverSlowsScoringAndIsRetriedWithBackoff) {
  for (bool hang : {true, false}) {
    TempDir dir;
    Receiver hook(hang ? 204 : 500, hang);
    std::string config = dir.Write("tala.toml",
                                   "[serve]\nsample = 1\n\n[[serve.alerts]]\n"
                                   "when = \"faithfulness.mean_1d < 0.70\"\n"
                                   "min_rows = 5\nwebhook = \"" +
                                       hook.url() + "\"\n");
    Served s(dir.path() + "/t.sqlite", {"--config", config});
    auto res =
        s.client->Post("/v1/interactions", FerryRows("bad", 10, false), "application/x-ndjson");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 202);
    ASSERT_EQ(hook.Await(1).size(), 1u);  // fired; the webhook now hangs, or said 500
    for (int batch = 0; batch < 10; ++batch) {
      res = s.client->Post("/v1/interactions",
                           FerryRows("b" + std::to_string(batch) + "-", 64, false),
                           "application/x-ndjson");
      ASSERT_TRUE(res);
      ASSERT_EQ(res->status, 202);
    }
    // All 650 rows scored well within the time one stalled delivery used to cost per pass.
    bool scored = false;
    for (int i = 0; i < 300 && !scored; ++i) {
      auto summary = s.client->Get("/v1/summary?window=1d");
      scored = summary && summary->body.find("\"rows_scored\":650,") != std::string::npos;
      if (!scored) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(scored);
    if (!hang) {
      // Backoff: 1 s, 2 s, 4 s... so over the next 2.5 s at most two more attempts.
      std::this_thread::sleep_for(std::chrono::milliseconds(2500));
      EXPECT_LE(hook.Count(), 5u);
      auto alerts = s.client->Get("/v1/alerts");
      ASSERT_TRUE(alerts);
      EXPECT_NE(alerts->body.find("\"error\":\"HTTP 500\""), std::string::npos) << alerts->body;
      EXPECT_NE(alerts->body.find("\"delivered\":false"), std::string::npos) << alerts->body;
    }
    hook.Release();
  }
}

std::string Gzip(const std::string& data) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // gzip wrapper
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// OTLP/HTTP protobuf as the OpenTelemetry JS SDK sent it (recorded once), plain and gzipped:
// one row with its documents, the answer in protobuf, and the repeat stored once.
TEST(ServeCommandTest, OtlpProtobufAndGzipFromARealSdkBecomeOneRow) {
  TempDir dir;
  Served s(dir.path() + "/t.sqlite", {"--sample", "1", "--trace-linger", "0"});
  std::ifstream in(std::string(TALA_SOURCE_DIR) + "/tests/data/otlp/js_sdk_trace.pb",
                   std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  auto res = s.client->Post("/v1/traces", bytes.str(), "application/x-protobuf");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/x-protobuf");
  EXPECT_EQ(res->body, "");  // an ExportTraceServiceResponse without a partial success
  httplib::Headers gzip = {{"Content-Encoding", "gzip"}};
  res = s.client->Post("/v1/traces", gzip, Gzip(bytes.str()), "application/x-protobuf");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  // The spans are stamped when the fixture was recorded, outside any window by now: the
  // counters since the start tell.
  ASSERT_FALSE(s.SettledSummary().empty());
  std::string metrics = s.MetricsOnce("tala_rows_scored_total 1\n");
  EXPECT_NE(metrics.find("tala_rows_ingested_total 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("tala_rows_scored_total 1\n"), std::string::npos) << metrics;
  auto rows = s.client->Get("/v1/rows?since=0");
  ASSERT_TRUE(rows);
  EXPECT_NE(rows->body.find("A single ride costs 2.40 euros."), std::string::npos) << rows->body;
  // JSON sent as protobuf is refused with the reason, not taken.
  res = s.client->Post("/v1/traces", "{\"resourceSpans\":[]}", "application/x-protobuf");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_NE(res->body.find("not an OTLP ExportTraceServiceRequest"), std::string::npos)
      << res->body;
}

TEST(ServeCommandTest, ATokenGuardsEverythingButHealth) {
  TempDir dir;
  Served s(dir.path() + "/t.sqlite", {"--token", "s3cret"});
  auto health = s.client->Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  auto denied = s.client->Get("/v1/summary");
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->status, 401);
  EXPECT_EQ(denied->body.find("s3cret"), std::string::npos);
  auto allowed = s.client->Get("/v1/summary", {{"Authorization", "Bearer s3cret"}});
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->status, 200);
  auto open = testing::RunTala("serve --db " + dir.path() + "/u.sqlite --host 0.0.0.0 2>&1");
  EXPECT_EQ(open.exit_code, 2);
  EXPECT_NE(open.out.find("needs --token"), std::string::npos) << open.out;
}

}  // namespace
}  // namespace tala
