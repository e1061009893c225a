// tala serve against what real clients and an attacker found in the fourth round
// (shared/reports/serve-real-clients-2.md findings 1-4, reliability-round4.md R3-R6): reads that
// never hold ingest, kept-alive replies without Nagle's delay, compressed bodies held to the
// limit once unpacked, a token-protected server reachable by its real names, OTLP shapes read
// as their instrumentations write them, and timestamps that cannot hide a row.

#include <gtest/gtest.h>
#include <httplib.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>

#include "safety/safety_support.h"

namespace tala::safety {
namespace {

using Clock = std::chrono::steady_clock;

double Millis(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

// The server's peak resident memory in kB (VmHWM), or -1.
int64_t PeakKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  }
  return -1;
}

// A serve database holding `rows` unsampled rows over the last day, tagged route and
// app_version, written straight into its tables (a POST of that many rows would take a minute).
void FillDatabase(const std::string& db, int64_t rows) {
  {
    Server schema(db);  // creates the tables
    ASSERT_FALSE(schema.url.empty());
  }
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
  const double now = static_cast<double>(std::time(nullptr));
  const std::string sql =
      "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < " +
      std::to_string(rows) +
      ") INSERT INTO rows (id, ts, tags, body, sampled, state) SELECT 'r' || i, " +
      std::to_string(now) +
      " - 86000 + (i * 7919 % 86000), json_object('route', 'r' || (i % 4), 'app_version', 'v' "
      "|| (i % 3)), '{}', 0, 'unsampled' FROM n;";
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(handle);
}

// Serve finding 1: a summary by a tag that is not broken down reads the window's rows; ingest
// goes on beside it.
TEST(ServeRound4Test, Finding1_ATagSummaryOverManyRowsNeverHoldsIngest) {
  TempDir dir;
  const std::string db = dir.path() + "/big.sqlite";
  FillDatabase(db, 1000000);
  Server s(db, {"--tag-key", "route", "--sample", "0"});
  ASSERT_FALSE(s.url.empty());
  httplib::Client reader(s.url);
  reader.set_read_timeout(300);
  Clock::time_point summary_start = Clock::now();
  double summary_ms = -1;
  std::string summary;
  std::thread slow([&] {
    auto res = reader.Get("/v1/summary?window=1d&tag=app_version%3Dv1");
    summary_ms = Millis(summary_start);
    if (res) summary = res->body;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  httplib::Client writer(s.url);
  std::vector<double> posts;
  for (int i = 0; i < 5; ++i) {
    const std::string row =
        "{\"id\":\"during-" + std::to_string(i) + "\",\"user_input\":\"q\",\"response\":\"r\"}\n";
    Clock::time_point t = Clock::now();
    auto res = writer.Post("/v1/interactions", row + row, "application/x-ndjson");
    posts.push_back(Millis(t));
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 202) << res->body;
  }
  const double posts_done_ms = Millis(summary_start);
  slow.join();
  ASSERT_NE(summary.find("\"rows_ingested\":333333"), std::string::npos) << summary;
  // The POSTs ran while the summary read its million rows; none waited for it (they waited the
  // whole summary before: 24 s at 1M rows). Each within 100 ms as a rule; a slow disk's sync may
  // stretch one, never to the summary's length.
  EXPECT_GT(summary_ms, posts.front() + 50) << "the summary ended before the first POST";
  std::vector<double> sorted = posts;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_LT(sorted[sorted.size() / 2], 100) << "median POST";
  for (double ms : posts) EXPECT_LT(ms, 500) << "a POST waited for the summary";
  std::printf("summary %.0f ms; posts done at %.0f ms; slowest post %.1f ms\n", summary_ms,
              posts_done_ms, *std::max_element(posts.begin(), posts.end()));
}

// Serve finding 2: every response after the first on a kept-alive connection waited ~40 ms.
TEST(ServeRound4Test, Finding2_KeptAliveRequestsAreAnsweredWithoutNaglesDelay) {
  TempDir dir;
  Server s(dir.path() + "/k.sqlite");
  httplib::Client c(s.url);
  c.set_keep_alive(true);
  std::vector<double> ms;
  for (int i = 0; i < 21; ++i) {
    Clock::time_point t = Clock::now();
    auto res = c.Get("/healthz");
    ms.push_back(Millis(t));
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200);
  }
  // The delayed ACK the body waited for is 40 ms; the median of 20 reused-connection requests is
  // under 5 ms (a loaded machine's outlier does not move a median).
  std::vector<double> reused(ms.begin() + 1, ms.end());
  std::nth_element(reused.begin(), reused.begin() + 10, reused.end());
  EXPECT_LT(reused[10], 5) << "median of kept-alive requests";
  // /metrics on the same connection still answers, and as quickly as a fresh one would.
  auto res = c.Get("/metrics");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

// R3: a small compressed body that unpacks past --max-body-bytes is refused with 413 once the
// limit is reached; serve never holds the unpacked body.
TEST(ServeRound4Test, R3_ACompressionBombIs413AndCostsNoMemory) {
  TempDir dir;
  const std::string bomb = dir.path() + "/bomb.gz";
  Shell("head -c 400000000 /dev/zero | gzip -1 > " + bomb);
  const std::string body = Slurp(bomb);
  ASSERT_GT(body.size(), 1000u);
  ASSERT_LT(body.size(), 2000000u);  // about 1.7 MB that unpacks to 400 MB
  const std::string small = dir.path() + "/small.gz";
  Shell("head -c 2000000 /dev/zero | gzip -9 > " + small);  // a 2 KB body of 2 MB
  Server s(dir.path() + "/b.sqlite", {"--max-body-bytes", "1000000"});
  httplib::Client c(s.url);
  ASSERT_TRUE(c.Get("/healthz"));
  const int64_t before = PeakKb(s.child->pid());
  for (const char* route : {"/v1/interactions", "/v1/traces"}) {
    httplib::Headers headers = {{"Content-Encoding", "gzip"}};
    auto res = c.Post(route, headers, Slurp(small), "application/json");
    ASSERT_TRUE(res) << route;
    EXPECT_EQ(res->status, 413) << route << " " << res->body;
    EXPECT_NE(res->body.find("over --max-body-bytes (1000000 bytes, counted once unpacked)"),
              std::string::npos)
        << res->body;
  }
  Server big(dir.path() + "/b2.sqlite");  // the default limit, 32 MiB
  httplib::Client c2(big.url);
  ASSERT_TRUE(c2.Get("/healthz"));
  const int64_t before_big = PeakKb(big.child->pid());
  auto res = c2.Post("/v1/interactions", {{"Content-Encoding", "gzip"}}, body, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413) << res->body;
  EXPECT_LT(PeakKb(big.child->pid()) - before_big, 100 * 1024) << "kB more at its peak";
  EXPECT_GT(before, 0);
  // A body that is not gzip at all, and an encoding serve cannot unpack, are 4xx too.
  res = c2.Post("/v1/interactions", {{"Content-Encoding", "gzip"}}, "not gzip", "application/json");
  ASSERT_TRUE(res);
  EXPECT_GE(res->status, 400);
  EXPECT_LT(res->status, 500);
  // A plain body still works on the same server.
  res = c2.Post("/v1/interactions", "{\"id\":\"ok\",\"user_input\":\"q\",\"response\":\"r\"}",
                "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 202) << res->body;
}

// R4: bound beyond loopback with a token, serve answers requests that name the machine by its
// host name or an address of its own (a Collector, a scrape, a probe by pod IP), and names
// given with --allowed-hosts; any other name is still refused.
TEST(ServeRound4Test, R4_ATokenProtectedServerAnswersItsRealNames) {
  TempDir dir;
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  auto child = std::make_unique<ChildProcess>(std::vector<std::string>{
      kTala, "serve", "--db", dir.path() + "/h.sqlite", "--host", "0.0.0.0", "--port", "0",
      "--token", "sekret", "--allowed-hosts", "tala.internal"});
  std::string url = child->FirstLine();  // http://0.0.0.0:PORT
  ASSERT_FALSE(url.empty());
  const std::string port = url.substr(url.rfind(':') + 1);
  httplib::Client c("127.0.0.1", std::stoi(port));
  const httplib::Headers auth = {{"Authorization", "Bearer sekret"}};
  for (const std::string& name : {std::string(host), std::string("tala.internal"),
                                  std::string("127.0.0.1"), std::string("localhost")}) {
    httplib::Headers h = auth;
    h.emplace("Host", name + ":" + port);
    auto res = c.Get("/metrics", h);
    ASSERT_TRUE(res) << name;
    EXPECT_EQ(res->status, 200) << name << " " << res->body;
    res = c.Get("/healthz", {{"Host", name + ":" + port}});
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << name;
  }
  auto res =
      c.Get("/metrics", {{"Host", "attacker.example:" + port}, {"Authorization", "Bearer sekret"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 421) << res->body;
  EXPECT_NE(res->body.find("--allowed-hosts"), std::string::npos) << res->body;
  // Without the token, a real name still gets 401, never data.
  res = c.Get("/metrics", {{"Host", std::string(host) + ":" + port}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 401);
}

// R5: a timestamp in epoch milliseconds (or years ahead) is refused, naming the field.
TEST(ServeRound4Test, R5_AFutureTimestampIsRefusedWithTheLikelyCause) {
  TempDir dir;
  Server s(dir.path() + "/t.sqlite");
  httplib::Client c(s.url);
  const int64_t now_ms = static_cast<int64_t>(std::time(nullptr)) * 1000;
  auto res = c.Post("/v1/interactions",
                    "{\"id\":\"ms\",\"user_input\":\"q\",\"response\":\"r\",\"timestamp\":" +
                        std::to_string(now_ms) + "}",
                    "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400) << res->body;
  EXPECT_NE(res->body.find("epoch milliseconds?"), std::string::npos) << res->body;
  EXPECT_NE(res->body.find("\"field\":\"timestamp\""), std::string::npos) << res->body;
  for (const char* ts : {"1e300", "-99999999999", "\"2300-01-01T00:00:00Z\""}) {
    res =
        c.Post("/v1/interactions",
               std::string("{\"id\":\"f\",\"user_input\":\"q\",\"response\":\"r\",\"timestamp\":") +
                   ts + "}",
               "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << ts << " " << res->body;
  }
  res = c.Post("/v1/interactions",
               "{\"id\":\"now\",\"user_input\":\"q\",\"response\":\"r\",\"timestamp\":" +
                   std::to_string(now_ms / 1000 - 3600) + "}",
               "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 202) << res->body;
}

// R7: an id reused for another interaction is a conflict: the first row is kept, and the answer
// and the log say so; an identical retry is a plain duplicate.
TEST(ServeRound4Test, R7_AReusedIdWithOtherContentIsCountedAsAConflict) {
  TempDir dir;
  Server s(dir.path() + "/c.sqlite");
  httplib::Client c(s.url);
  const std::string first = "{\"id\":\"idem-1\",\"user_input\":\"q\",\"response\":\"r\"}";
  auto res = c.Post("/v1/interactions", first, "application/json");
  ASSERT_TRUE(res);
  EXPECT_NE(res->body.find("\"duplicates\":0,\"conflicts\":0"), std::string::npos) << res->body;
  res = c.Post("/v1/interactions", first, "application/json");  // a retry
  ASSERT_TRUE(res);
  EXPECT_NE(res->body.find("\"duplicates\":1,\"conflicts\":0"), std::string::npos) << res->body;
  res = c.Post("/v1/interactions",
               "{\"id\":\"idem-1\",\"user_input\":\"DIFFERENT q\",\"response\":\"r\"}",
               "application/json");
  ASSERT_TRUE(res);
  EXPECT_NE(res->body.find("\"duplicates\":1,\"conflicts\":1"), std::string::npos) << res->body;
}

// R6: history queries and the prune body are read strictly.
TEST(ServeRound4Test, R6_NanInfinityAndTrailingTextAreRefused) {
  TempDir dir;
  Server s(dir.path() + "/p.sqlite");
  httplib::Client c(s.url);
  for (const char* q : {"nan", "1e999", "inf", "-1"}) {
    auto res = c.Get(std::string("/v1/history/trend?metric=faithfulness&min_effect=") + q);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << q << " " << res->body;
  }
  for (const char* body :
       {"{\"keep\":0,\"older_than_days\":-1}trailing", "{\"keep\":-7,\"older_than_days\":1}",
        "{\"keep\":1,\"older_than_days\":nan}", "{\"keep\":1}",
        "{\"keep\":1,\"older_than_days\":2,\"x\":1}"}) {
    auto res = c.Post("/v1/history/prune", body, "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << body << " " << res->body;
  }
  auto res =
      c.Post("/v1/history/prune", "{\"keep\": 5, \"older_than_days\": -1}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
}

// An OTLP/JSON trace of one root span and its children, each given as (name, attributes JSON,
// events JSON) under the root.
std::string OtlpTrace(const std::string& trace_id, const std::vector<std::string>& spans) {
  std::string body = "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[";
  for (size_t i = 0; i < spans.size(); ++i) {
    if (i) body += ',';
    body += "{\"traceId\":\"" + trace_id + "\",\"spanId\":\"000000000000000" +
            std::to_string(i + 1) + "\"" + (i ? ",\"parentSpanId\":\"0000000000000001\"" : "") +
            ",\"endTimeUnixNano\":\"" + std::to_string(std::time(nullptr)) + "000000000\"," +
            spans[i] + "}";
  }
  return body + "]}]}]}";
}

std::string Attr(const std::string& key, const std::string& value) {
  return "{\"key\":\"" + key + "\",\"value\":{\"stringValue\":" + value + "}}";
}

// The stored row of trace `id`, once scored.
std::string RowOf(httplib::Client& c, const std::string& id) {
  for (int i = 0; i < 400; ++i) {
    auto res = c.Get("/v1/rows?limit=100");
    if (res) {
      for (const std::string& line : Lines(res->body)) {
        if (line.find("\"id\":\"" + id + "\"") != std::string::npos) return line;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "";
}

// Serve finding 3: OpenInference's LangChain layout records a chain's dict input and output as
// JSON text with mime type application/json; the row holds the texts inside.
TEST(ServeRound4Test, Finding3_OpenInferenceJsonValuesAreReadAsTheirText) {
  TempDir dir;
  Server s(dir.path() + "/oi.sqlite", {"--sample", "1", "--trace-linger", "0"});
  httplib::Client c(s.url);
  const std::string trace = OtlpTrace(
      "aaaa0000000000000000000000000001",
      {"\"name\":\"chain\",\"attributes\":[" + Attr("openinference.span.kind", "\"CHAIN\"") + "," +
           Attr("input.value", "\"{\\\"question\\\": \\\"How much is a ticket?\\\"}\"") + "," +
           Attr("input.mime_type", "\"application/json\"") + "," +
           Attr("output.value", "\"{\\\"answer\\\": \\\"A ticket is 2 euros.\\\"}\"") + "," +
           Attr("output.mime_type", "\"application/json\"") + "]",
       "\"name\":\"retrieve\",\"attributes\":[" + Attr("openinference.span.kind", "\"RETRIEVER\"") +
           "," + Attr("retrieval.documents.0.document.content", "\"A ticket costs 2 euros.\"") +
           "]"});
  auto res = c.Post("/v1/traces", trace, "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const std::string row = RowOf(c, "aaaa0000000000000000000000000001");
  ASSERT_FALSE(row.empty());
  EXPECT_NE(row.find("\"user_input\":\"How much is a ticket?\""), std::string::npos) << row;
  EXPECT_NE(row.find("\"response\":\"A ticket is 2 euros.\""), std::string::npos) << row;
}

// Serve finding 4: OpenLLMetry records retrieval as a vector database's query span with one
// db.query.result event per document; those are the row's contexts. A row without contexts is
// never called healthy.
TEST(ServeRound4Test, Finding4_OpenLlmetryVectorQueryEventsAreTheContexts) {
  TempDir dir;
  Server s(dir.path() + "/ol.sqlite", {"--sample", "1", "--trace-linger", "0"});
  httplib::Client c(s.url);
  auto llm = [](const std::string& question) {
    return "\"name\":\"openai.chat\",\"attributes\":[" + Attr("llm.request.type", "\"chat\"") +
           "," + Attr("gen_ai.prompt.0.role", "\"user\"") + "," +
           Attr("gen_ai.prompt.0.content", "\"" + question + "\"") + "," +
           Attr("gen_ai.completion.0.role", "\"assistant\"") + "," +
           Attr("gen_ai.completion.0.content", "\"A ticket costs 2 euros.\"") + "]";
  };
  const std::string query =
      "\"name\":\"chroma.query\",\"attributes\":[" + Attr("db.system", "\"chroma\"") +
      "],\"events\":[{\"name\":\"db.query.result\",\"attributes\":[" +
      Attr("db.query.result.id", "\"fares\"") + "," +
      Attr("db.query.result.document", "\"A single ticket costs 2 euros.\"") +
      "]},{\"name\":\"db.query.result\",\"attributes\":[" +
      Attr("db.query.result.id", "\"night\"") + "," +
      Attr("db.query.result.document", "\"Night buses run every 30 minutes.\"") + "]}]";
  auto res = c.Post(
      "/v1/traces",
      OtlpTrace("bbbb0000000000000000000000000001",
                {"\"name\":\"workflow\",\"attributes\":[]", query, llm("How much is a ticket?")}),
      "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  res = c.Post("/v1/traces",
               OtlpTrace("cccc0000000000000000000000000001",
                         {"\"name\":\"workflow\",\"attributes\":[]", llm("How much is a ticket?")}),
               "application/json");
  ASSERT_TRUE(res);
  std::string row = RowOf(c, "bbbb0000000000000000000000000001");
  ASSERT_FALSE(row.empty());
  EXPECT_NE(row.find("\"retrieved_contexts\":[\"A single ticket costs 2 euros.\",\"Night buses"),
            std::string::npos)
      << row;
  row = RowOf(c, "cccc0000000000000000000000000001");
  ASSERT_FALSE(row.empty());
  EXPECT_EQ(row.find("\"diagnosis\":\"healthy\""), std::string::npos) << row;
  EXPECT_NE(row.find("\"diagnosis\":\"not diagnosed\""), std::string::npos) << row;
}

}  // namespace
}  // namespace tala::safety
