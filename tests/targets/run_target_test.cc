// RunTarget against real targets: an HTTP server on 127.0.0.1 (cpp-httplib) and real child
// processes (tests/targets/fake_target.py), faults included.

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/temp_dir.h"
#include "tala/run.h"

namespace tala {
namespace {

using nlohmann::json;
using tala::testing::TempDir;

const std::string kFake =
    "/usr/bin/python3 " + std::string(TALA_SOURCE_DIR) + "/tests/targets/fake_target.py";

// An app over HTTP: answers {"question"} with its text, counting calls in flight at once.
class TestApp {
 public:
  TestApp() {
    server_.Post("/ask", [this](const httplib::Request& req, httplib::Response& res) {
      int now = ++in_flight_;
      for (int seen = peak_.load(); now > seen && !peak_.compare_exchange_weak(seen, now);) {
      }
      json body = json::parse(req.body, nullptr, false);
      std::string q = body.is_object() ? body.value("question", "") : "";
      {
        std::lock_guard<std::mutex> lock(mu_);
        calls_[q]++;
        headers_ = req.get_header_value("Authorization");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms_));
      int n = calls_for(q);
      if (q == "flaky" && n == 1) {
        res.status = 503;
      } else if (q == "forbidden") {
        res.status = 403;
        res.set_content("{\"error\":\"no\"}", "application/json");
      } else if (q == "garbled") {
        res.set_content("not json at all", "text/plain");
      } else if (q == "slow") {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        res.set_content(R"({"answer":"late","contexts":[]})", "application/json");
      } else {
        res.set_content(
            json{{"answer", "A: " + q}, {"contexts", {{{"id", "d-" + q}, {"text", q}}}}}.dump(),
            "application/json");
      }
      --in_flight_;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~TestApp() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/ask"; }
  int peak() const { return peak_; }
  int calls_for(const std::string& q) {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_[q];
  }
  std::string authorization() {
    std::lock_guard<std::mutex> lock(mu_);
    return headers_;
  }
  int sleep_ms_ = 0;

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<int> in_flight_{0}, peak_{0};
  std::mutex mu_;
  std::map<std::string, int> calls_;
  std::string headers_;
};

std::string Golden(const TempDir& dir, const std::vector<std::string>& questions) {
  std::string text;
  for (size_t i = 0; i < questions.size(); ++i) {
    text += json{{"id", "q" + std::to_string(i)},
                 {"user_input", questions[i]},
                 {"reference", "r"},
                 {"topic", "t"}}
                .dump() +
            "\n";
  }
  return dir.Write("golden.jsonl", text);
}

std::vector<json> Rows(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(json::parse(line));
  return rows;
}

RunOptions Options(const TempDir& dir, const std::string& golden, const std::string& target) {
  RunOptions o;
  o.golden = golden;
  o.out = dir.path() + "/out.jsonl";
  o.target.target = target;
  o.timeout_ms = 5000;
  return o;
}

TEST(RunTargetTest, HttpRowsCarryTheGoldenFieldsAndTheAppsAnswerInGoldenOrder) {
  TempDir dir;
  TestApp app;
  std::vector<std::string> qs;
  for (int i = 0; i < 12; ++i) qs.push_back("question " + std::to_string(i));
  RunOptions o = Options(dir, Golden(dir, qs), app.url());
  ::setenv("TALA_TEST_APP_TOKEN", "tok", 1);
  o.target.headers = {"Authorization: Bearer ${TALA_TEST_APP_TOKEN}"};
  o.max_in_flight = 4;
  app.sleep_ms_ = 30;
  auto report = RunTarget(o);
  ASSERT_TRUE(report) << report.error().ToString();
  EXPECT_EQ(report->rows_answered, 12);
  EXPECT_EQ(report->rows_failed, 0);
  EXPECT_LE(app.peak(), 4);  // the limit, measured at the server
  EXPECT_GE(app.peak(), 2);
  EXPECT_EQ(app.authorization(), "Bearer tok");
  auto rows = Rows(o.out);
  ASSERT_EQ(rows.size(), 12u);
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i]["id"], "q" + std::to_string(i));
    EXPECT_EQ(rows[i]["topic"], "t");
    EXPECT_EQ(rows[i]["response"], "A: " + qs[i]);
    EXPECT_EQ(rows[i]["retrieved_contexts"], json({qs[i]}));
    EXPECT_EQ(rows[i]["retrieved_context_ids"], json({"d-" + qs[i]}));
    EXPECT_TRUE(rows[i]["latency_ms"].is_number());
  }
}

TEST(RunTargetTest, FaultsRetryOnlyWhatCanSucceedAndNameTheRowAndPath) {
  TempDir dir;
  TestApp app;
  RunOptions o =
      Options(dir, Golden(dir, {"flaky", "forbidden", "garbled", "slow", "fine"}), app.url());
  o.timeout_ms = 150;
  o.max_retries = 1;
  auto report = RunTarget(o);
  ASSERT_TRUE(report) << report.error().ToString();
  auto rows = Rows(o.out);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0]["response"], "A: flaky");  // a 503, then an answer
  EXPECT_EQ(app.calls_for("flaky"), 2);
  EXPECT_EQ(rows[1]["target_error"], "row q1: HTTP 403: {\"error\":\"no\"}");
  EXPECT_EQ(app.calls_for("forbidden"), 1);  // a 4xx is not retried
  EXPECT_EQ(rows[2]["target_error"], "row q2: the reply is not JSON: not json at all");
  EXPECT_NE(rows[3]["target_error"].get<std::string>().find("(after 2 attempts)"),
            std::string::npos);
  EXPECT_FALSE(rows[3].contains("response"));
  EXPECT_EQ(rows[4]["response"], "A: fine");
  EXPECT_EQ(report->rows_answered, 2);
  EXPECT_EQ(report->rows_failed, 3);
  EXPECT_EQ(report->error_reasons.size(), 3u);
}

TEST(RunTargetTest, AnUnreachableServerStopsTheRunEarly) {
  TempDir dir;
  std::vector<std::string> qs(20, "q");
  for (size_t i = 0; i < qs.size(); ++i) qs[i] += std::to_string(i);
  RunOptions o = Options(dir, Golden(dir, qs), "http://127.0.0.1:1/ask");
  o.max_in_flight = 1;
  auto report = RunTarget(o);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().code(), ErrorCode::kUnavailable);
  EXPECT_NE(report.error().message().find("cannot reach the target"), std::string::npos);
}

TEST(RunTargetTest, ExecRepliesAreMatchedByIdWithSeveralInFlight) {
  TempDir dir;
  std::vector<std::string> qs;
  for (int i = 0; i < 10; ++i) qs.push_back("q" + std::to_string(i));
  RunOptions o = Options(dir, Golden(dir, qs), "exec:" + kFake + " --pairs");
  o.max_in_flight = 4;
  auto report = RunTarget(o);
  ASSERT_TRUE(report) << report.error().ToString();
  auto rows = Rows(o.out);
  ASSERT_EQ(rows.size(), 10u);
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i]["response"], "echo: " + qs[i]);
    EXPECT_EQ(rows[i]["target_usage"]["prompt_tokens"], 10);
  }
  EXPECT_EQ(report->prompt_tokens, 100);
  EXPECT_GE(report->peak_in_flight, 2);
}

TEST(RunTargetTest, ACrashedProcessIsRestartedAndItsRowRetried) {
  TempDir dir;
  RunOptions o = Options(dir, Golden(dir, {"a", "b", "c", "d"}),
                         "exec:" + kFake + " --crash-on q1 --state " + dir.path());
  o.max_in_flight = 1;
  auto report = RunTarget(o);
  ASSERT_TRUE(report) << report.error().ToString();
  EXPECT_EQ(report->rows_answered, 4);
  EXPECT_EQ(report->restarts, 1);
  EXPECT_EQ(report->retries, 1);
  EXPECT_EQ(Rows(o.out)[1]["response"], "echo: b");
}

TEST(RunTargetTest, AProcessThatKeepsCrashingStopsTheRunWithItsStderr) {
  TempDir dir;
  RunOptions o = Options(dir, Golden(dir, {"a", "b", "c"}),
                         "exec:/usr/bin/python3 -c 'import sys; sys.stderr.write(\"boom\\n\"); "
                         "sys.exit(4)'");
  o.max_restarts = 2;
  auto report = RunTarget(o);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().code(), ErrorCode::kUnavailable);
  EXPECT_NE(report.error().message().find("(--max-restarts 2)"), std::string::npos)
      << report.error().message();
  EXPECT_NE(report.error().message().find("boom"), std::string::npos);
}

TEST(RunTargetTest, AnUnparsableExecReplyTimesOutAndTheRunGoesOn) {
  TempDir dir;
  RunOptions o = Options(dir, Golden(dir, {"a", "b"}), "exec:" + kFake + " --garbage-on q0");
  o.timeout_ms = 300;
  o.max_retries = 0;
  auto report = RunTarget(o);
  ASSERT_TRUE(report) << report.error().ToString();
  auto rows = Rows(o.out);
  EXPECT_EQ(rows[0]["target_error"], "row q0: no reply line within the timeout");
  EXPECT_EQ(rows[1]["response"], "echo: b");
}

TEST(RunTargetTest, ExecOnceKeepsEachRowsStderrAndRetriesAFailedRun) {
  TempDir dir;
  RunOptions o = Options(dir, Golden(dir, {"a", "b"}), "exec-once:" + kFake + " --once");
  auto report = RunTarget(o);
  ASSERT_TRUE(report) << report.error().ToString();
  auto rows = Rows(o.out);
  EXPECT_EQ(rows[1]["response"], "echo: b");
  EXPECT_EQ(rows[1]["target_stderr"], "fake_target: answered q1\n");
  o.target.target = "exec-once:" + kFake + " --once --fail-once-on q0";
  o.max_retries = 1;
  report = RunTarget(o);
  ASSERT_TRUE(report);
  rows = Rows(o.out);
  EXPECT_EQ(rows[0]["target_error"],
            "row q0: the command failed (exit status 2); its stderr ends: fake_target: refusing "
            "this one (after 2 attempts)");
}

TEST(RunTargetTest, ResumeCallsOnlyForRowsNotAnswered) {
  TempDir dir;
  TestApp app;
  std::string golden = Golden(dir, {"one", "forbidden", "three"});
  RunOptions o = Options(dir, golden, app.url());
  // An earlier run: row q0 answered, q1 failed, q2 cut off by a crash mid-line.
  dir.Write(
      "out.jsonl",
      "{\"id\":\"q0\",\"user_input\":\"one\",\"response\":\"kept\",\"retrieved_contexts\":[]}\n"
      "{\"id\":\"q1\",\"user_input\":\"forbidden\",\"target_error\":\"x\"}\n"
      "{\"id\":\"q2\",\"user_in");
  o.resume = true;
  auto report = RunTarget(o);
  ASSERT_TRUE(report) << report.error().ToString();
  EXPECT_EQ(report->rows_resumed, 1);
  EXPECT_EQ(app.calls_for("one"), 0);
  auto rows = Rows(o.out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["response"], "kept");
  EXPECT_EQ(rows[1]["id"], "q1");
  EXPECT_EQ(rows[2]["response"], "A: three");
}

TEST(RunTargetTest, TheOptionalCacheAnswersARepeatedRequestWithoutACall) {
  TempDir dir;
  TestApp app;
  RunOptions o = Options(dir, Golden(dir, {"alpha", "beta"}), app.url());
  o.cache = dir.path() + "/target-cache.sqlite";
  ASSERT_TRUE(RunTarget(o));
  auto again = RunTarget(o);
  ASSERT_TRUE(again) << again.error().ToString();
  EXPECT_EQ(again->cache_hits, 2);
  EXPECT_EQ(again->calls, 0);
  EXPECT_EQ(app.calls_for("alpha"), 1);
  EXPECT_EQ(Rows(o.out)[1]["response"], "A: beta");
  o.cache = "off";  // the default: the pipeline under test is called
  ASSERT_TRUE(RunTarget(o));
  EXPECT_EQ(app.calls_for("alpha"), 2);
}

TEST(RunTargetTest, BadGoldenRowsAndTemplatesStopBeforeAnyCall) {
  TempDir dir;
  TestApp app;
  RunOptions o = Options(dir,
                         dir.Write("g.jsonl",
                                   "{\"id\":1,\"user_input\":\"a\"}\n"
                                   "{\"id\":1,\"user_input\":\"b\"}\n"),
                         app.url());
  auto r = RunTarget(o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().ToString(),
            dir.path() + "/g.jsonl:2: field \"id\": duplicate id 1 (also on line 1)");
  o.golden = dir.Write("g2.jsonl", "{\"id\":1,\"question\":\"a\"}\n");
  EXPECT_EQ(RunTarget(o).error().where().field, "user_input");
  o.golden = Golden(dir, {"a"});
  o.target.body = R"({"q":"{{nope}}"})";
  EXPECT_EQ(RunTarget(o).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(app.calls_for("a"), 0);
}

}  // namespace
}  // namespace tala
