// tala serve as users run it: a child process on 127.0.0.1, real HTTP, kill -9 and a restart.

#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli/child_process.h"
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
  // The summary once no sampled row waits (the scorer runs beside the server).
  std::string SettledSummary(const httplib::Headers& headers = {}) {
    for (int i = 0; i < 600; ++i) {
      auto res = client->Get("/v1/summary?window=1d", headers);
      if (res && res->body.find("\"rows_pending\":0,") != std::string::npos) return res->body;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return "";
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
    auto res = s.client->Post("/v1/interactions", demo, "application/x-ndjson");
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
                               "faithfulness,response_relevancy --json -q -o " +
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
    std::string body;
    for (int i = 0; i < 400; ++i) {
      body += "{\"id\":\"k" + std::to_string(i) +
              "\",\"user_input\":\"When does the ferry sail?\",\"response\":\"Every 20 minutes.\","
              "\"retrieved_contexts\":[\"The ferry sails every 20 minutes.\"]}\n";
    }
    for (int batch = 0; batch < 5; ++batch) {
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
