// Nothing forged, nothing leaked, nothing paid twice: tala serve and tala review --serve against
// hostile requests on loopback, targets that flood or linger, credentials in URLs, and a fault
// test of serve under kill -9 with a second server on the same database.
// F26, N1, N2, N6, N7, N9, N10, N14, N15, N16, N21, N22, N23.

#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "safety/safety_support.h"

namespace tala::safety {
namespace {

const bool kKeySet = ::setenv("OPENAI_API_KEY", "x", 1) == 0;

int64_t Field(const std::string& json, const char* key) {
  simdjson::dom::parser p;
  int64_t v = -1;
  simdjson::dom::element e;
  if (p.parse(json).get(e) || e[key].get_int64().get(v)) return -1;
  return v;
}

// The summary once no sampled row waits.
std::string Settled(httplib::Client& c) {
  for (int i = 0; i < 600; ++i) {
    auto res = c.Get("/v1/summary?window=1d");
    if (res && res->body.find("\"rows_pending\":0,") != std::string::npos) return res->body;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "";
}

TEST(ServeSafetyTest, N1_N14_MalformedOrDeepOtlpIs400WithAFieldAndNoCrash) {
  TempDir dir;
  Server s(dir.path() + "/y.sqlite");
  httplib::Client c(s.url);
  std::string deep =
      "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"ab\","
      "\"attributes\":";
  for (int i = 0; i < 75000; ++i) deep += "{\"a\":";
  deep += "1";
  deep += std::string(75000, '}');
  deep += "}]}]}]}";
  auto res = c.Post("/v1/traces", deep, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400) << res->body;
  EXPECT_NE(res->body.find("nested deeper"), std::string::npos) << res->body;
  for (const char* body :
       {"{\"resourceSpans\":[1]}", "[[]]", "{\"resourceSpans\":[{\"scopeSpans\":[7]}]}",
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"a\","
        "\"endTimeUnixNano\":\"soon\",\"attributes\":[{\"key\":\"x\","
        "\"value\":{\"intValue\":\"many\"}}]}]}]}]}"}) {
    res = c.Post("/v1/traces", body, "application/json");
    ASSERT_TRUE(res) << body;
    EXPECT_LT(res->status, 500) << body << "\n" << res->body;
    EXPECT_FALSE(res->has_header("EXCEPTION_WHAT")) << body;
  }
  res = c.Post("/v1/traces", "{\"resourceSpans\":[1]}", "application/json");
  EXPECT_NE(res->body.find("resourceSpans[0]"), std::string::npos) << res->body;
  EXPECT_TRUE(c.Get("/healthz"));  // still serving
}

TEST(ServeSafetyTest, N6_ForeignHostsOriginsAndFormPostsAreRefused) {
  TempDir dir;
  Server s(dir.path() + "/c.sqlite");
  httplib::Client c(s.url);
  const std::string row = "{\"id\":\"csrf-1\",\"user_input\":\"forged\",\"response\":\"forged\"}";
  auto res = c.Post("/v1/interactions", {{"Origin", "http://evil.example"}}, row, "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403) << res->body;
  res = c.Get("/v1/rows?limit=1", {{"Host", "attacker.example:18601"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 421) << res->body;
  res = c.Options("/v1/interactions", {{"Origin", "http://evil.example"}});
  ASSERT_TRUE(res);
  EXPECT_FALSE(res->has_header("Access-Control-Allow-Origin"));
  // N15: a form post is told which content types are taken, whatever its size.
  res = c.Post("/v1/interactions", std::string(10240, 'x'), "application/x-www-form-urlencoded");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 415) << res->body;
  EXPECT_NE(res->body.find("application/json"), std::string::npos);
  // Its own origin, and no origin at all (curl), are served.
  std::string port = s.url.substr(s.url.rfind(':') + 1);
  res =
      c.Post("/v1/interactions", {{"Origin", "http://127.0.0.1:" + port}}, row, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 202) << res->body;
  EXPECT_EQ(Field(Settled(c), "rows_ingested"), 1);
}

TEST(ServeSafetyTest, N9_IdlessRowsGetContentIdsSoSamplingIsAShareAndRetriesStoreOnce) {
  TempDir dir;
  Server s(dir.path() + "/s.sqlite", {"--sample", "0.5"});
  httplib::Client c(s.url);
  int64_t sampled = 0;
  for (int i = 0; i < 200; ++i) {
    std::string row = "{\"user_input\":\"question number " + std::to_string(i) +
                      "?\",\"response\":\"answer " + std::to_string(i) + "\"}";
    auto res = c.Post("/v1/interactions", row, "application/json");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 202) << res->body;
    sampled += Field(res->body, "sampled");
    EXPECT_EQ(res->body.find("\"ids\":[\"1\"]"), std::string::npos) << res->body;
    if (i == 0) {  // the same request again (a client's retry): stored once
      auto again = c.Post("/v1/interactions", row, "application/json");
      EXPECT_EQ(Field(again->body, "duplicates"), 1) << again->body;
    }
  }
  EXPECT_GT(sampled, 60);
  EXPECT_LT(sampled, 140);
  EXPECT_EQ(Field(Settled(c), "rows_ingested"), 200);
}

TEST(ServeSafetyTest, N10_ATagValueWithEqualsSignsIsRead) {
  TempDir dir;
  Server s(dir.path() + "/t.sqlite");
  httplib::Client c(s.url);
  auto res = c.Post("/v1/interactions",
                    "{\"id\":\"t1\",\"user_input\":\"q\",\"response\":\"r\",\"tags\":{\"route\":"
                    "\"faq\"}}",
                    "application/json");
  ASSERT_EQ(res->status, 202);
  Settled(c);
  res = c.Get("/v1/summary?window=7d&tag=route=faq");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(Field(res->body, "rows_ingested"), 1) << res->body;
}

TEST(ServeSafetyTest, N22_MaxPendingBelowTheRequestSizeIsRefusedAtStart) {
  TempDir dir;
  auto r = RunTala("serve --db " + dir.path() +
                   "/mp.sqlite --port 0 --sample 1 --max-pending 3 "
                   "--max-rows-per-request 4 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--max-pending (3) must be at least --max-rows-per-request (4)"),
            std::string::npos)
      << r.out;
}

TEST(ServeSafetyTest, N16_ASecondServerOnOneDatabaseRefusesToStart) {
  TempDir dir;
  const std::string db = dir.path() + "/two.sqlite";
  Server first(db);
  ASSERT_FALSE(first.url.empty());
  auto r = RunTala("serve --db " + db + " --port 0 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("in use by another tala process (pid"), std::string::npos) << r.out;
}

TEST(ServeSafetyTest, N21_SigtermStopsAtOnceWithAStalledJudgeAndKeepsRowsPending) {
  TempDir dir;
  std::string url;
  auto stall = testing::StartMockJudge({"--always", "stall", "--stall-ms", "600000"}, &url);
  const std::string db = dir.path() + "/st.sqlite";
  Server s(db, {"--judge", "openai:gpt-4o-mini", "--base-url", url, "--metrics", "faithfulness",
                "--cache", "off", "--sample", "1"});
  httplib::Client c(s.url);
  auto res = c.Post("/v1/interactions", Demo(), "application/x-ndjson");
  ASSERT_EQ(res->status, 202);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(s.child->Stop(SIGTERM), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  // Restarted with the offline judge, every row is there and gets scored.
  Server again(db, {"--metrics", "faithfulness"});
  httplib::Client c2(again.url);
  std::string summary = Settled(c2);
  EXPECT_EQ(Field(summary, "rows_ingested"), 22) << summary;
  EXPECT_EQ(Field(summary, "rows_scored"), 22) << summary;
  stall->Kill(SIGKILL);  // its stalled replies would hold its exit for their whole stall
}

// The fault test: concurrent ingest with an LLM judge, kill -9 mid-way, a second server refused
// while the first lives; after a restart every acknowledged row is stored and scored once, and
// the judge was paid once per row.
TEST(ServeSafetyTest, KillNineDuringIngestLosesNothingAndPaysOnce) {
  TempDir dir;
  std::string url;
  const std::string arrivals = dir.path() + "/arrivals.txt";
  auto mock = testing::StartMockJudge({"--arrival-log", arrivals, "--latency-ms", "5"}, &url);
  const std::string db = dir.path() + "/k9.sqlite";
  const std::vector<std::string> llm = {
      "--judge", "openai:gpt-4o-mini", "--base-url", url, "--metrics", "faithfulness", "--cache",
      "off",     "--sample",           "1"};
  std::atomic<int64_t> acked{0};
  {
    Server s(db, llm);
    ASSERT_FALSE(s.url.empty());
    auto second = RunTala("serve --db " + db + " --port 0 2>&1");
    EXPECT_EQ(second.exit_code, 2) << second.out;
    std::atomic<bool> go{true};
    std::vector<std::thread> writers;
    for (int t = 0; t < 4; ++t) {
      writers.emplace_back([&, t] {
        httplib::Client c(s.url);
        for (int b = 0; go && b < 200; ++b) {
          std::string body;
          for (int k = 0; k < 5; ++k) {
            body += "{\"id\":\"w" + std::to_string(t) + "-" + std::to_string(b) + "-" +
                    std::to_string(k) +
                    "\",\"user_input\":\"When do night buses run?\",\"response\":\"Night buses "
                    "run every 30 minutes.\",\"retrieved_contexts\":[\"Night buses run every 30 "
                    "minutes between 00:30 and 05:00.\"]}\n";
          }
          auto res = c.Post("/v1/interactions", body, "application/x-ndjson");
          if (res && res->status == 202) acked += 5;
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    s.child->Kill(SIGKILL);
    go = false;
    for (auto& w : writers) w.join();
  }
  ASSERT_GT(acked.load(), 0);
  Server again(db, llm);
  httplib::Client c(again.url);
  std::string summary = Settled(c);
  ASSERT_FALSE(summary.empty());
  const int64_t stored = Field(summary, "rows_ingested");
  EXPECT_GE(stored, acked.load());  // every acknowledged row (a request cut off may be stored)
  EXPECT_EQ(Field(summary, "rows_scored") + Field(summary, "rows_failed"), stored) << summary;
  // One faithfulness call (claims and verification in one) per row, at most the rows whose
  // call was in flight at the kill again.
  const int64_t calls = static_cast<int64_t>(Lines(Slurp(arrivals)).size());
  EXPECT_LE(calls, stored + 64) << summary;
}

TEST(ServeSafetyTest, N7_ReviewServeNeedsItsPageTokenAndMergesLabels) {
  TempDir dir;
  const std::string res = dir.path() + "/res.jsonl";
  ASSERT_EQ(RunTala("eval " + kDemoPath + " -m faithfulness -q -o " + res).exit_code, 0);
  const std::string first =
      "{\"id\":\"demo-01\",\"faithfulness\":1}\n"
      "{\"id\":\"demo-02\",\"faithfulness\":0}\n";
  const std::string labels = dir.Write("labels.jsonl", first);
  // A labels path that cannot be written is refused at start, not at the first save.
  auto bad =
      RunTala("review " + res + " --serve --port 0 --labels-out /nonexistent/dir/l.jsonl 2>&1");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  ChildProcess review({kTala, "review", res, "--serve", "--port", "0", "--labels-out", labels});
  const std::string url = review.FirstLine();
  ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << url;
  httplib::Client c(url.substr(0, url.size() - (url.back() == '/' ? 1 : 0)));
  auto page = c.Get("/");
  ASSERT_TRUE(page);
  size_t at = page->body.find("id=\"token\">\"");
  ASSERT_NE(at, std::string::npos);
  const std::string token = page->body.substr(at + 12, 32);
  const std::string header =
      "{\"tala_labels\":{\"pick\":\"random\",\"seed\":1,"
      "\"metric\":\"faithfulness\",\"n\":3,\"results\":\"res.jsonl\"}}\n";
  auto post = [&](const std::string& body, httplib::Headers h) {
    return c.Post("/labels", h, body, "application/x-ndjson");
  };
  const httplib::Headers ok = {{"X-Tala-Token", token}};
  // Forged from another page: no token, or another origin.
  auto r = post(header + "{\"id\":\"demo-01\",\"faithfulness\":0}\n", {});
  EXPECT_EQ(r->status, 403);
  r = post("", {{"X-Tala-Token", token}, {"Origin", "http://evil.example"}});
  EXPECT_EQ(r->status, 403);
  // An empty save drops nothing.
  r = post("", ok);
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_EQ(Slurp(labels), first);
  // A label outside the metric's range is refused.
  r = post(header + "{\"id\":\"demo-03\",\"faithfulness\":7}\n", ok);
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_EQ(Slurp(labels), first);
  // A page that holds only its own label adds it; the file's labels stay.
  r = post(header + "{\"id\":\"demo-03\",\"faithfulness\":1}\n", ok);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->body, "3 rows saved");
  // Saves at once all land, each under a scratch name of its own.
  std::vector<std::thread> savers;
  std::atomic<int> saved{0};
  std::mutex failures_mu;
  std::string failures;
  for (int i = 0; i < 20; ++i) {
    savers.emplace_back([&, i] {
      httplib::Client cc(url.substr(0, url.size() - 1));
      // Saves are one at a time, each synced to disk: a loaded machine can take longer than
      // the client's default 5 s for the last of 20.
      cc.set_read_timeout(60, 0);
      const std::string body =
          header + "{\"id\":\"demo-" + std::to_string(10 + i) + "\",\"faithfulness\":1}\n";
      auto rr = cc.Post("/labels", ok, body, "application/x-ndjson");
      // A connection dropped before any reply is sent once more (the page resends its whole
      // state on the next change): saves merge by id, so a repeat cannot add a row twice. An
      // HTTP error is final.
      if (!rr) rr = cc.Post("/labels", ok, body, "application/x-ndjson");
      if (rr && rr->status == 200) {
        ++saved;
      } else {
        std::lock_guard<std::mutex> lock(failures_mu);
        failures += (rr ? std::to_string(rr->status) + " " + rr->body
                        : "no reply: " + httplib::to_string(rr.error())) +
                    "\n";
      }
    });
  }
  for (auto& t : savers) t.join();
  EXPECT_EQ(saved.load(), 20) << failures;
  const std::string final_text = Slurp(labels);
  EXPECT_EQ(Count(final_text, "\"id\":"), 23u) << final_text;
  EXPECT_NE(final_text.find("\"demo-01\""), std::string::npos);
}

TEST(ServeSafetyTest, N2_AFloodingTargetFailsItsRowNotTheProcess) {
  TempDir dir;
  const std::string zero = dir.Write("zero.sh", "#!/bin/sh\nexec cat /dev/zero\n");
  ::chmod(zero.c_str(), 0755);
  const std::string golden = dir.Write("g.jsonl", "{\"id\":\"g1\",\"user_input\":\"q\"}\n");
  for (const std::string& target : {"exec:" + zero, "exec-once:" + zero}) {
    const std::string out = dir.path() + "/o.jsonl";
    auto r = RunTala("run " + golden + " --target " + target + " --out " + out +
                     " --max-retries 0 --max-restarts 0 --max-reply-mib 2 --timeout-ms 20000 2>&1");
    EXPECT_NE(r.exit_code, 3) << target << "\n" << r.out;  // never "internal error"
    EXPECT_EQ(r.out.find("bad_alloc"), std::string::npos) << r.out;
    EXPECT_NE(Slurp(out).find("MiB"), std::string::npos) << target << "\n" << Slurp(out);
  }
}

TEST(ServeSafetyTest, N23_ExecOnceEndsWhenTheCommandExits) {
  TempDir dir;
  const std::string bg = dir.Write("bg.sh",
                                   "#!/bin/sh\nread -r line\nsleep 25 &\n"
                                   "echo '{\"answer\":\"ok\",\"contexts\":[\"c\"]}'\nexit 0\n");
  ::chmod(bg.c_str(), 0755);
  const std::string out = dir.path() + "/o.jsonl";
  auto start = std::chrono::steady_clock::now();
  auto r = RunTala("run " + dir.Write("g.jsonl", "{\"id\":\"g1\",\"user_input\":\"q\"}\n") +
                   " --target exec-once:" + bg + " --out " + out +
                   " --timeout-ms 10000 --max-retries 0 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
  EXPECT_NE(Slurp(out).find("\"response\":\"ok\""), std::string::npos) << Slurp(out);
}

TEST(ServeSafetyTest, F26_CredentialsInTheBaseUrlNeverReachTheResults) {
  TempDir dir;
  std::string url;
  auto mock = testing::StartMockJudge({}, &url);
  const std::string with_user = "http://alice:PASSW0RDX@" + url.substr(7);
  const std::string with_query = url + "?api_key=QUERYSECRET";
  for (const std::string& base : {with_user, with_query}) {
    const std::string out = dir.path() + "/cred.jsonl";
    RunTala("eval " + dir.Write("one.jsonl", Lines(Demo())[0] + "\n") +
            " --judge openai:gpt-4o-mini --base-url '" + base + "' -m faithfulness --cache off " +
            "-q --overwrite -o " + out + " --html " + dir.path() + "/cred.html 2>&1");
    const std::string text = Slurp(out) + Slurp(dir.path() + "/cred.html");
    EXPECT_EQ(text.find("PASSW0RDX"), std::string::npos);
    EXPECT_EQ(text.find("QUERYSECRET"), std::string::npos);
    EXPECT_NE(Slurp(out).find("\"base_url\""), std::string::npos);
  }
}

}  // namespace
}  // namespace tala::safety
