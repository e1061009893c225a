// `tala eval` with an LLM judge, end to end: the built binary against the tala-mock-judge
// program on 127.0.0.1 (OpenAI wire format).

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "cli/child_process.h"
#include "cli/run_tala.h"
#include "support/temp_dir.h"

namespace tala::testing {
namespace {

std::string Dataset(int rows) {
  std::string out;
  for (int i = 0; i < rows; ++i) {
    std::string n = std::to_string(i);
    out += "{\"id\":\"q" + n + "\",\"user_input\":\"When was bridge " + n +
           " opened?\",\"response\":\"Bridge " + n + " opened in 19" + std::to_string(10 + i % 90) +
           ". It crosses the river.\",\"reference\":\"Bridge " + n + " opened in 19" +
           std::to_string(10 + i % 90) + ".\",\"retrieved_contexts\":[\"Bridge " + n +
           " opened in 19" + std::to_string(10 + i % 90) +
           " after years of work.\",\"Cats sleep a lot.\",\"Bridge " + n +
           " crosses the river downtown.\"]}\n";
  }
  return out;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Row lines only (not the manifest or run records).
std::vector<std::string> RowLines(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& l : Lines(text)) {
    if (l.rfind("{\"id\":", 0) == 0) out.push_back(l);
  }
  return out;
}

// Each row line's "scores" object, as text.
std::vector<std::string> ScoresOf(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& row : RowLines(text)) {
    size_t at = row.find("\"scores\":");
    out.push_back(row.substr(at, row.find('}', at) - at));
  }
  return out;
}

// A port on 127.0.0.1 that nothing listens on (free when this returns).
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return 0;
  }
  close(fd);
  return ntohs(addr.sin_port);
}

class LlmEvalTest : public ::testing::Test {
 protected:
  void StartMock(std::vector<std::string> extra = {}) {
    mock_ = StartMockJudge(std::move(extra), &url_);
    ASSERT_EQ(url_.rfind("http://127.0.0.1:", 0), 0u) << url_;
  }
  // Runs tala eval in the background against the mock (2 requests in flight, no cache) and
  // returns once `rows` rows are in `out`.
  std::unique_ptr<ChildProcess> StartEvalAndWait(const std::string& data, const std::string& out,
                                                 const std::string& metrics, size_t rows) {
    auto tala = std::make_unique<ChildProcess>(
        std::vector<std::string>{std::string(TALA_BINARY_DIR) + "/tala", "eval", data, "--judge",
                                 "openai:mock-model", "--base-url", url_, "--cache", "off", "-o",
                                 out, "--max-in-flight", "2", "--metrics", metrics,
                                 "--no-progress"},
        /*pipe_stdout=*/false);
    for (int i = 0; i < 400 && RowLines(dir_.Read("r.jsonl")).size() < rows; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return tala;
  }
  std::string Eval(const std::string& data, const std::string& out, const std::string& extra) {
    std::string cache = extra.find("--cache") == std::string::npos
                            ? " --cache " + dir_.path() + "/cache.sqlite"
                            : "";
    return data + " --judge openai:mock-model --base-url " + url_ + cache + " -o " + out +
           " --no-progress " + extra + " 2>&1";
  }
  TempDir dir_;
  std::unique_ptr<ChildProcess> mock_;
  std::string url_;
};

TEST_F(LlmEvalTest, ScoresWritesAManifestAndAccountsForEveryCall) {
  StartMock();
  std::string data = dir_.Write("d.jsonl", Dataset(12));
  std::string out = dir_.path() + "/r.jsonl";
  // The separate calls (4 chat + 1 embeddings a row); the default layout is tested below.
  CommandOutput r = RunTala("eval " + Eval(data, out,
                                           "--metrics faithfulness,context_precision,context_"
                                           "recall,response_relevancy --layout separate"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("judge: openai:mock-model"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("requests 60 (retries 0, repairs 0), failed calls 0"), std::string::npos)
      << r.out;
  std::vector<std::string> lines = Lines(dir_.Read("r.jsonl"));
  ASSERT_EQ(lines.size(), 14u);  // manifest, 12 rows, run record
  EXPECT_EQ(lines.front().rfind("{\"tala_manifest\":", 0), 0u);
  EXPECT_NE(lines.front().find("\"response_claims\":\"4\""), std::string::npos) << lines.front();
  EXPECT_EQ(lines.back().rfind("{\"tala_run\":{\"status\":\"complete\"", 0), 0u) << lines.back();
  EXPECT_NE(lines[1].find("\"id\":\"q0\""), std::string::npos) << "rows keep input order";
  // Reports and compare read the file back, skipping the manifest and run record.
  EXPECT_EQ(RunTala("report " + out + " --csv - 2>&1").exit_code, 0);
  EXPECT_EQ(RunTala("compare " + out + " " + out + " 2>&1").exit_code, 0);
}

TEST_F(LlmEvalTest, TheReportedModelIsRecordedAndCompareWarnsWhenTheBackendChanged) {
  std::string data = dir_.Write("d.jsonl", Dataset(4));
  std::string a = dir_.path() + "/a.jsonl", b = dir_.path() + "/b.jsonl";
  StartMock({"--system-fingerprint", "fp_old"});
  ASSERT_EQ(RunTala("eval " + Eval(data, a, "--metrics faithfulness --cache off")).exit_code, 0);
  mock_.reset();
  StartMock({"--system-fingerprint", "fp_new"});
  ASSERT_EQ(RunTala("eval " + Eval(data, b, "--metrics faithfulness --cache off")).exit_code, 0);
  std::vector<std::string> lines = Lines(dir_.Read("a.jsonl"));
  EXPECT_NE(lines.back().find("\"models_reported\":[\"mock-model-2026-01-01\"],"
                              "\"system_fingerprints\":[\"fp_old\"]"),
            std::string::npos)
      << lines.back();
  CommandOutput same = RunTala("compare " + a + " " + a + " 2>&1");
  EXPECT_EQ(same.out.find("reported different"), std::string::npos) << same.out;
  CommandOutput moved = RunTala("compare " + a + " " + b + " 2>&1");
  EXPECT_EQ(moved.exit_code, 0);
  EXPECT_NE(moved.out.find("warning: the judge's provider reported different system "
                           "fingerprints: fp_old vs fp_new"),
            std::string::npos)
      << moved.out;
}

TEST_F(LlmEvalTest, AWarmCacheRerunMakesNoCallsAndWritesIdenticalRows) {
  StartMock();
  std::string data = dir_.Write("d.jsonl", Dataset(8));
  std::string first = dir_.path() + "/a.jsonl", second = dir_.path() + "/b.jsonl";
  ASSERT_EQ(RunTala("eval " + Eval(data, first, "")).exit_code, 0);
  CommandOutput warm = RunTala("eval " + Eval(data, second, ""));
  ASSERT_EQ(warm.exit_code, 0) << warm.out;
  EXPECT_NE(warm.out.find("requests 0 (retries 0, repairs 0)"), std::string::npos) << warm.out;
  EXPECT_EQ(RowLines(dir_.Read("a.jsonl")), RowLines(dir_.Read("b.jsonl")));
  CommandOutput stats = RunTala("cache stats --cache " + dir_.path() + "/cache.sqlite 2>&1");
  EXPECT_EQ(stats.exit_code, 0);
  EXPECT_NE(stats.out.find("replies"), std::string::npos) << stats.out;
  EXPECT_EQ(RunTala("cache clear --cache " + dir_.path() + "/cache.sqlite 2>&1").exit_code, 0);
  EXPECT_NE(
      RunTala("cache stats --cache " + dir_.path() + "/cache.sqlite 2>&1").out.find(": 0 replies"),
      std::string::npos);
}

TEST_F(LlmEvalTest, AFifthOfCallsFaultedStillScoresEveryRow) {
  StartMock({"--fault-rate", "0.2", "--stall-ms", "1500"});
  std::string data = dir_.Write("d.jsonl", Dataset(30));
  std::string out = dir_.path() + "/r.jsonl";
  CommandOutput r = RunTala("eval " + Eval(data, out, "--timeout-ms 500 --cache off"));
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.out;
  std::vector<std::string> rows = RowLines(dir_.Read("r.jsonl"));
  ASSERT_EQ(rows.size(), 30u);
  for (const std::string& row : rows) {
    // Every null score carries its reason.
    size_t pos = 0;
    while ((pos = row.find(":null", pos)) != std::string::npos) {
      ++pos;
      EXPECT_NE(row.find("\"reasons\""), std::string::npos) << row;
    }
  }
  EXPECT_NE(r.out.find("retries"), std::string::npos);
}

TEST_F(LlmEvalTest, AKilledRunFinishesWithResume) {
  StartMock({"--latency-ms", "40"});
  std::string data = dir_.Write("d.jsonl", Dataset(60));
  std::string out = dir_.path() + "/r.jsonl";
  // Kill it once some rows (but not all) are written.
  StartEvalAndWait(data, out, "faithfulness,context_recall", 10)->Kill(SIGKILL);
  size_t before = RowLines(dir_.Read("r.jsonl")).size();
  ASSERT_GE(before, 10u);
  ASSERT_LT(before, 60u) << "the run finished before it could be killed";
  CommandOutput r = RunTala("eval " + data + " --judge openai:mock-model --base-url " + url_ +
                            " --cache off -o " + out +
                            " --metrics faithfulness,context_recall --resume --no-progress 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("kept from the results file"), std::string::npos) << r.out;
  std::set<std::string> ids;
  for (const std::string& row : RowLines(dir_.Read("r.jsonl"))) {
    std::string id = row.substr(7, row.find('"', 7) - 7);
    EXPECT_TRUE(ids.insert(id).second) << "row written twice: " << id;
  }
  EXPECT_EQ(ids.size(), 60u);
  EXPECT_NE(r.out.find("rows: 60 scored"), std::string::npos) << r.out;
}

TEST_F(LlmEvalTest, CtrlCStopsCleanlyKeepingEveryRowDone) {
  StartMock({"--latency-ms", "40"});
  std::string data = dir_.Write("d.jsonl", Dataset(60));
  std::string out = dir_.path() + "/r.jsonl";
  EXPECT_EQ(StartEvalAndWait(data, out, "faithfulness", 5)->Stop(SIGINT), 130);
  std::vector<std::string> lines = Lines(dir_.Read("r.jsonl"));
  ASSERT_GE(lines.size(), 7u);  // manifest, at least 5 rows, the run record
  EXPECT_LT(lines.size(), 62u);
  EXPECT_EQ(lines.back().rfind("{\"tala_run\":{\"status\":\"cancelled\"", 0), 0u) << lines.back();
  for (size_t i = 1; i + 1 < lines.size(); ++i) {
    EXPECT_EQ(lines[i].rfind("{\"id\":", 0), 0u) << "a whole row on every line: " << lines[i];
  }
}

TEST_F(LlmEvalTest, ResumeRefusesAFileMadeWithOtherMetrics) {
  StartMock();
  std::string data = dir_.Write("d.jsonl", Dataset(3));
  std::string out = dir_.path() + "/r.jsonl";
  ASSERT_EQ(RunTala("eval " + Eval(data, out, "--metrics faithfulness")).exit_code, 0);
  CommandOutput r = RunTala("eval " + Eval(data, out, "--metrics context_recall --resume"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("--resume"), std::string::npos) << r.out;
}

TEST_F(LlmEvalTest, DryRunEstimatesWithoutCallingOrWriting) {
  StartMock();
  std::string data = dir_.Write("d.jsonl", Dataset(10));
  std::string out = dir_.path() + "/never.jsonl";
  CommandOutput r = RunTala("eval " + Eval(data, out, "--dry-run --layout separate"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("dry run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("estimated calls"), std::string::npos) << r.out;
  EXPECT_EQ(dir_.Read("never.jsonl"), "");
  // Issue 56: what a provider's prompt cache could do is said, from the start the calls of each
  // prompt share (tala's prompts share a few hundred tokens, under OpenAI's minimum).
  EXPECT_NE(r.out.find("provider prompt cache: none applies: the calls of each prompt share at "
                       "most "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("under OpenAI's 1,024-token minimum"), std::string::npos) << r.out;
  RunTala("eval " + Eval(data, out, "--layout separate"));  // warm the cache
  CommandOutput again = RunTala("eval " + Eval(data, out, "--dry-run --json --layout separate"));
  EXPECT_NE(again.out.find("\"estimated\":true"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("\"rate_chunks@2\":{\"calls\":0,\"cache_hits\":10,"), std::string::npos)
      << "cached calls are predicted: " << again.out;
}

TEST_F(LlmEvalTest, AHostedApiWithoutAKeyIsAClearError) {
  std::string data = dir_.Write("d.jsonl", Dataset(1));
  CommandOutput r = RunTala("eval " + data + " --judge openai:gpt-4o-mini -o " + dir_.path() +
                            "/r.jsonl 2>&1 </dev/null");
  // The test environment may hold a real key; only check the message when it does not.
  if (std::getenv("OPENAI_API_KEY") == nullptr && std::getenv("OPENAI_BASE_URL") == nullptr) {
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("OPENAI_API_KEY is not set"), std::string::npos) << r.out;
  }
}

TEST_F(LlmEvalTest, ABadKeyStopsTheRunAndSaysSo) {
  StartMock({"--always", "401"});
  std::string data = dir_.Write("d.jsonl", Dataset(5));
  CommandOutput r = RunTala("eval " + Eval(data, dir_.path() + "/r.jsonl", "--cache off"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("HTTP 401"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check the API key"), std::string::npos) << r.out;
}

TEST_F(LlmEvalTest, ConfigFileSetsOptionsAndFlagsOverrideIt) {
  StartMock();
  std::string data = dir_.Write("d.jsonl", Dataset(2));
  std::string config =
      dir_.Write("tala.toml", "judge = \"openai:mock-model\"\nbase_url = \"" + url_ +
                                  "\"\ncache = \"off\"\nmetrics = \"faithfulness\"\n");
  CommandOutput r =
      RunTala("eval " + data + " --config " + config + " -o " + dir_.path() + "/r.jsonl 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("judge: openai:mock-model"), std::string::npos) << r.out;
  CommandOutput offline = RunTala("eval " + data + " --config " + config + " --judge offline -o " +
                                  dir_.path() + "/r2.jsonl 2>&1");
  EXPECT_NE(offline.out.find("judge: offline"), std::string::npos) << offline.out;
  std::string bad = dir_.Write("bad.toml", "judge = \"offline\"\nmax_in_flite = 4\n");
  CommandOutput e = RunTala("eval " + data + " --config " + bad + " 2>&1");
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_NE(e.out.find("bad.toml:2: unknown key \"max_in_flite\""), std::string::npos) << e.out;
  std::string typed = dir_.Write("typed.toml", "max_in_flight = \"many\"\n");
  CommandOutput t = RunTala("eval " + data + " --config " + typed + " 2>&1");
  EXPECT_NE(t.out.find("typed.toml:1: max_in_flight: expected an integer"), std::string::npos)
      << t.out;
}

// Issue 56: --layout combined asks one call for a row's claims and chunk ratings. The mock
// answers it as it answers the separate calls, so the scores are the same, with two chat calls a
// row in place of four; the manifest records the layout, and compare refuses to set the two
// layouts side by side unless asked, as for other prompt versions.
TEST_F(LlmEvalTest, TheCombinedLayoutScoresAsTheSeparateCallsWithHalfTheChatCalls) {
  StartMock();
  std::string data = dir_.Write("d.jsonl", Dataset(8));
  std::string a = dir_.path() + "/a.jsonl", b = dir_.path() + "/b.jsonl";
  const std::string core =
      "--metrics faithfulness,context_precision,context_recall,response_relevancy --cache off";
  CommandOutput separate = RunTala("eval " + Eval(data, a, core + " --layout separate"));
  ASSERT_EQ(separate.exit_code, 0) << separate.out;
  CommandOutput combined = RunTala("eval " + Eval(data, b, core + " --layout combined"));
  ASSERT_EQ(combined.exit_code, 0) << combined.out;
  EXPECT_NE(separate.out.find("requests 40 (retries 0"), std::string::npos) << separate.out;
  EXPECT_NE(combined.out.find("requests 24 (retries 0"), std::string::npos) << combined.out;
  EXPECT_NE(combined.out.find("row_verdicts@1"), std::string::npos) << combined.out;
  EXPECT_EQ(ScoresOf(dir_.Read("a.jsonl")), ScoresOf(dir_.Read("b.jsonl")));
  EXPECT_NE(Lines(dir_.Read("b.jsonl")).front().find("\"layout\":\"combined\""), std::string::npos);
  EXPECT_EQ(Lines(dir_.Read("a.jsonl")).front().find("\"layout\""), std::string::npos);
  CommandOutput refused = RunTala("compare " + a + " " + b + " 2>&1");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.out.find("layout separate vs combined"), std::string::npos) << refused.out;
  EXPECT_EQ(RunTala("compare " + a + " " + b + " --allow-version-mismatch 2>&1").exit_code, 0);
  // The dry run names the layout's prompt and what a provider's cache could do with its start.
  CommandOutput dry = RunTala("eval " + Eval(data, b, core + " --layout auto --dry-run"));
  EXPECT_NE(dry.out.find("row_verdicts@1"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("row_verdicts "), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("layouts: the chat calls would bill about "), std::string::npos)
      << dry.out;
  EXPECT_NE(dry.out.find("this run uses --layout auto"), std::string::npos) << dry.out;
  // Rating chunks one call each cannot be combined: said, not ignored.
  const std::string c = dir_.path() + "/c.jsonl";
  CommandOutput clash =
      RunTala("eval " + Eval(data, c, core + " --layout combined --batching per-chunk"));
  EXPECT_NE(clash.exit_code, 0);
  EXPECT_NE(clash.out.find("--batching per-chunk"), std::string::npos) << clash.out;
  std::string config = dir_.Write("tala.toml", "layout = \"sideways\"\n");
  CommandOutput bad = RunTala("eval " + Eval(data, c, core + " --config " + config));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.out.find("expected auto, separate, row-first or combined"), std::string::npos)
      << bad.out;
}

// Issue 56: --layout row-first on rows whose data passes the provider's 1,024-token minimum. The
// mock's prompt cache works as Anthropic's does (it reads only up to the blocks tala marks), so
// every call after a row's first reads the row's data from it: the siblings wait for the first.
// The separate calls' starts (their instructions) are under the minimum: nothing is read. Scores
// are the same; the default (auto) is recorded in the manifest, the separate calls are not.
TEST_F(LlmEvalTest, RowFirstCallsReadTheRowsDataFromTheProviderCache) {
  StartMock({"--prefix-cache", "1024"});
  std::string rows;
  for (int i = 0; i < 6; ++i) {
    std::string n = std::to_string(i), filler;
    for (int k = 0; k < 30; ++k)
      filler += "The river bank " + n + " holds sediment layer " + std::to_string(k) + ". ";
    rows += "{\"id\":\"q" + n + "\",\"user_input\":\"When was bridge " + n +
            " opened?\",\"response\":\"Bridge " + n + " opened in 1931.\",\"reference\":\"Bridge " +
            n + " opened in 1931.\",\"retrieved_contexts\":[\"Bridge " + n +
            " opened in 1931.\",\"" + filler + "\",\"" + filler + "\",\"" + filler + "\"]}\n";
  }
  std::string data = dir_.Write("long.jsonl", rows);
  const std::string core =
      " --metrics faithfulness,context_precision,context_recall --cache off --json";
  auto run = [&](const std::string& out, const std::string& layout) {
    CommandOutput r = RunTala("eval " + data + " --judge anthropic:claude-sonnet-4-5 --base-url " +
                              url_ + " -o " + dir_.path() + "/" + out + " --no-progress" + core +
                              layout + " 2>/dev/null");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return nlohmann::json::parse(r.out, nullptr, false);
  };
  nlohmann::json separate = run("s.jsonl", " --layout separate");
  nlohmann::json row_first = run("f.jsonl", " --layout row-first");
  ASSERT_TRUE(separate.is_object() && row_first.is_object());
  EXPECT_EQ(separate["accounting"]["total"]["requests"], 18);
  EXPECT_EQ(row_first["accounting"]["total"]["requests"], 18);
  EXPECT_EQ(separate["accounting"]["total"]["cache_read_tokens"], 0);
  // Two of each row's three calls read the row's start.
  const int64_t read = row_first["accounting"]["total"]["cache_read_tokens"].get<int64_t>();
  EXPECT_GT(read, 2 * 6 * 1024) << row_first.dump();
  EXPECT_EQ(separate["metrics"], row_first["metrics"]);
  EXPECT_EQ(ScoresOf(dir_.Read("s.jsonl")), ScoresOf(dir_.Read("f.jsonl")));
  EXPECT_NE(Lines(dir_.Read("f.jsonl")).front().find("\"layout\":\"row-first\""),
            std::string::npos);
  EXPECT_EQ(Lines(dir_.Read("s.jsonl")).front().find("\"layout\""), std::string::npos);
  nlohmann::json chosen = run("a.jsonl", "");
  EXPECT_NE(Lines(dir_.Read("a.jsonl")).front().find("\"layout\":\"auto\""), std::string::npos);
  EXPECT_EQ(ScoresOf(dir_.Read("s.jsonl")), ScoresOf(dir_.Read("a.jsonl")));
  // The dry run compares the three layouts and says how many rows' data reach the minimum.
  CommandOutput dry =
      RunTala("eval " + data + " --judge anthropic:claude-sonnet-4-5 --base-url " + url_ + " -o " +
              dir_.path() + "/d.jsonl --dry-run" + core.substr(0, core.size() - 7) + " 2>&1");
  EXPECT_NE(dry.out.find("with row-first ("), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("a row's own data reaches it in 6 of 6 rows"), std::string::npos)
      << dry.out;
}

TEST_F(LlmEvalTest, Issue16_TheMockJudgeListensOnTheGivenPort) {
  int port = FreePort();
  ASSERT_GT(port, 0);
  StartMock({"--port", std::to_string(port)});
  EXPECT_EQ(url_, "http://127.0.0.1:" + std::to_string(port) + "/v1");
  std::string data = dir_.Write("d.jsonl", Dataset(2));
  CommandOutput r = RunTala("eval " + Eval(data, dir_.path() + "/r.jsonl", "--cache off"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  ChildProcess bad({std::string(TALA_BINARY_DIR) + "/tala-mock-judge", "--port", "70000"});
  EXPECT_EQ(bad.FirstLine(), "");  // refused before serving: no URL
}

TEST_F(LlmEvalTest, Issue16_AJudgeThatRefusesConnectionsStopsTheRunWithTheReason) {
  int port = FreePort();
  ASSERT_GT(port, 0);
  url_ = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  std::string data = dir_.Write("d.jsonl", Dataset(50));
  CommandOutput r = RunTala("eval " + Eval(data, dir_.path() + "/r.jsonl", "--cache off"));
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.out.find("cannot reach the judge: " + url_), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("is the server running"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Connection refused"), std::string::npos) << r.out;
}

TEST_F(LlmEvalTest, Issue16_WhenEveryCallFailsTheSummarySaysFinishedNotScoredAndWhy) {
  StartMock({"--always", "500"});
  std::string data = dir_.Write("d.jsonl", Dataset(4));
  CommandOutput r = RunTala("eval " + Eval(data, dir_.path() + "/r.jsonl",
                                           "--cache off --max-retries 0 --metrics faithfulness"));
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.out.find("rows: 4 finished: 0 scored, 4 with judge failures"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("judge failures, first distinct reasons (rows):\n       4  "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("HTTP 500"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tala::testing
