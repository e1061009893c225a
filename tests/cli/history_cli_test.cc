// tala history as users run it: 30 runs added one command each, the trend printed with "drop"
// on the one real drop, the page's self-test in headless Chromium, and tala ci adding its run to
// a running tala serve whose dashboard shows it in the Runs tab.

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli/child_process.h"
#include "cli/headless_browser.h"
#include "cli/run_tala.h"
#include "history/run_files.h"
#include "support/temp_dir.h"

namespace tala {
namespace {

using testing::ChildProcess;
using testing::RunFile;
using testing::RunTala;
using testing::TempDir;

const std::string kSource = TALA_SOURCE_DIR;
const std::string kTala = std::string(TALA_BINARY_DIR) + "/tala";

// The lines of `text` that end in the word "drop".
std::vector<std::string> DropLines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() >= 5 && line.compare(line.size() - 5, 5, " drop") == 0) out.push_back(line);
  }
  return out;
}

TEST(HistoryCliTest, ThirtyRunsShowTheirOneDropAndThePageChecksItself) {
  TempDir dir;
  const std::string store = " --store " + dir.path() + "/h.sqlite";
  for (int run = 1; run <= 30; ++run) {
    std::string file = RunFile(dir, run, run >= 20 ? 0.08 : 0.0);
    auto added = RunTala("history add " + file + " --label 'build " + std::to_string(run) +
                         "' --tag branch=main" + store + " 2>&1");
    ASSERT_EQ(added.exit_code, 0) << added.out;
    ASSERT_NE(added.out.find("added run " + std::to_string(run)), std::string::npos) << added.out;
  }
  // The same file again is not a new run.
  auto again = RunTala("history add " + dir.path() + "/run3-d1offline.jsonl" + store + " 2>&1");
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("has the content of run 3 (build 3), already stored"), std::string::npos)
      << again.out;

  auto show = RunTala("history show --metric faithfulness --tag branch=main" + store + " 2>&1");
  ASSERT_EQ(show.exit_code, 0) << show.out;
  auto drops = DropLines(show.out);
  ASSERT_EQ(drops.size(), 1u) << show.out;
  EXPECT_NE(drops[0].find("build 20"), std::string::npos) << drops[0];
  EXPECT_NE(show.out.find("1 drop flagged"), std::string::npos);
  // The newest run (30) is not a drop; --fail-on-drop exits 0. After run 20 alone, it is one.
  EXPECT_EQ(RunTala("history show --metric faithfulness --fail-on-drop" + store).exit_code, 0);
  TempDir short_dir;
  const std::string short_store = " --store " + short_dir.path() + "/h.sqlite";
  for (int run : {18, 19, 20}) {
    ASSERT_EQ(
        RunTala("history add " + RunFile(short_dir, run, run >= 20 ? 0.08 : 0.0) + short_store)
            .exit_code,
        0);
  }
  EXPECT_EQ(RunTala("history show --metric faithfulness --fail-on-drop" + short_store).exit_code,
            1);

  auto list = RunTala("history" + store);
  ASSERT_EQ(list.exit_code, 0) << list.out;
  EXPECT_NE(list.out.find("build 30 [branch=main]"), std::string::npos) << list.out;

  auto report = RunTala("history report -o " + dir.path() + "/history.html" + store + " 2>&1");
  ASSERT_EQ(report.exit_code, 0) << report.out;
  std::string dom = testing::DumpDom("file://" + dir.path() + "/history.html#selftest",
                                     " --window-size=1400,1000");
  EXPECT_NE(
      dom.find("SELFTEST ok=1 charts=2/2 drops=1/1 runs=30/30 open=1 compare=2 prod=0 errors=0"),
      std::string::npos)
      << dom.substr(dom.find("SELFTEST") == std::string::npos ? 0 : dom.find("SELFTEST"), 300);

  // Usage errors teach.
  auto no_metric = RunTala("history show --metric nope" + store + " 2>&1");
  EXPECT_EQ(no_metric.exit_code, 2) << no_metric.out;
  EXPECT_NE(no_metric.out.find("the runs have: context_recall, faithfulness"), std::string::npos)
      << no_metric.out;
  auto prune = RunTala("history prune" + store + " 2>&1");
  EXPECT_EQ(prune.exit_code, 2);
  EXPECT_NE(prune.out.find("--keep N or --older-than D"), std::string::npos) << prune.out;
  auto pruned = RunTala("history prune --keep 10" + store + " 2>&1");
  EXPECT_EQ(pruned.exit_code, 0);
  EXPECT_NE(pruned.out.find("removed 20 runs"), std::string::npos) << pruned.out;
}

TEST(HistoryCliTest, CiAddsItsRunToAServeWhoseDashboardShowsItInTheRunsTab) {
  TempDir dir;
  const std::string db = dir.path() + "/serve.sqlite";
  ChildProcess serve(
      {kTala, "serve", "--db", db, "--port", "0", "--token", "s3cret", "--sample", "1"});
  const std::string url = serve.FirstLine();
  ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << url;
  std::string config = dir.Write("tala.toml", "[history]\nstore = \"" + url +
                                                  "\"\ntoken_env = \"HISTORY_TEST_TOKEN\"\n"
                                                  "tags = { suite = \"golden\" }\n");
  const std::string golden = kSource + "/examples/data/golden.jsonl";
  const std::string app = "/usr/bin/python3 " + kSource + "/examples/rag_app/rag_app.py";
  auto ci = RunTala("ci " + golden + " --target 'exec:" + app + " jsonl' --out-dir " + dir.path() +
                    "/ci --config " + config + " -q 2>&1");
  httplib::Client client(url);
  // Without the token the serve refuses, and the job says so without failing on it.
  EXPECT_EQ(ci.exit_code, 0) << ci.out;
  EXPECT_NE(ci.out.find("could not add the run to the history"), std::string::npos) << ci.out;
  EXPECT_NE(ci.out.find("HTTP 401"), std::string::npos) << ci.out;

  const std::string env =
      "HISTORY_TEST_TOKEN=s3cret GITHUB_SHA=0123456789abcdef GITHUB_REF_NAME=main ";
  std::string cmd = "cd " + dir.path() + " && " + env + kTala + " ci " + golden +
                    " --target 'exec:" + app + " jsonl' --out-dir " + dir.path() +
                    "/ci2 --config " + config + " -q 2>&1";
  std::FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  ASSERT_EQ(pclose(pipe), 0) << out;
  EXPECT_NE(out.find("added to the history as run 1"), std::string::npos) << out;
  std::ifstream summary(dir.path() + "/ci2/summary.md");
  std::stringstream md;
  md << summary.rdbuf();
  EXPECT_NE(md.str().find("History: added to the history as run 1"), std::string::npos);

  // tala history reads the serve store as it reads a file.
  auto remote = RunTala("history --store " + url + " --token s3cret 2>&1");
  ASSERT_EQ(remote.exit_code, 0) << remote.out;
  EXPECT_NE(remote.out.find("0123456789ab main [suite=golden]"), std::string::npos) << remote.out;
  auto trend = RunTala("history show --metric faithfulness --store " + url + " --token s3cret");
  ASSERT_EQ(trend.exit_code, 0) << trend.out;
  EXPECT_NE(trend.out.find("faithfulness across 1 runs"), std::string::npos) << trend.out;
  auto refused = RunTala("history --store " + url + " --token wrong 2>&1");
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_NE(refused.out.find("missing or wrong bearer token"), std::string::npos) << refused.out;

  // A body that is not a run is refused, naming what is wrong; nothing is stored.
  auto bad = client.Post("/v1/history/runs", {{"Authorization", "Bearer s3cret"}},
                         "{\"run\":{\"label\":\"x\",\"metrics\":[{\"key\":\"f\"}]},\"ids\":[\"a\"],"
                         "\"values\":{\"f\":[0.5,0.6]}}",
                         "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("has 2 values for 1 ids"), std::string::npos) << bad->body;

  // Production traffic scored by the serve is drawn under the runs on the history page.
  std::ifstream demo_file(kSource + "/examples/data/interactions.jsonl");
  std::stringstream demo;
  demo << demo_file.rdbuf();
  auto ingested = client.Post("/v1/interactions", {{"Authorization", "Bearer s3cret"}}, demo.str(),
                              "application/x-ndjson");
  ASSERT_TRUE(ingested);
  ASSERT_EQ(ingested->status, 202) << ingested->body;
  for (int i = 0; i < 300; ++i) {
    auto summary = client.Get("/v1/summary?window=1d", {{"Authorization", "Bearer s3cret"}});
    if (summary && summary->body.find("\"rows_scored\":22,") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto history_page = RunTala("history report -o " + dir.path() + "/runs.html --store " + url +
                              " --token s3cret 2>&1");
  ASSERT_EQ(history_page.exit_code, 0) << history_page.out;
  std::string runs_dom = testing::DumpDom("file://" + dir.path() + "/runs.html#selftest");
  EXPECT_NE(runs_dom.find("SELFTEST ok=1"), std::string::npos) << runs_dom.substr(0, 300);
  EXPECT_EQ(runs_dom.find("prod=0 "), std::string::npos)
      << runs_dom.substr(runs_dom.find("tala-production"), 600);

  // The dashboard, fetched with the token as a browser behind a proxy would get it, and opened.
  auto page = client.Get("/", {{"Authorization", "Bearer s3cret"}});
  ASSERT_TRUE(page);
  ASSERT_EQ(page->status, 200);
  std::string file = dir.Write("dashboard.html", page->body);
  std::string dom = testing::DumpDom("file://" + file + "#selftest", " --window-size=1400,900");
  EXPECT_NE(dom.find("runs=1 shown labels=0123456789ab_main"), std::string::npos)
      << dom.substr(dom.find("SELFTEST") == std::string::npos ? 0 : dom.find("SELFTEST"), 400);
  EXPECT_NE(dom.find("errors=0"), std::string::npos);
}

}  // namespace
}  // namespace tala
