// End-to-end: `tala diagnose` against the example RAG app with seeded faults (issue 57). The
// golden set (examples/data/golden_faults.jsonl) holds 60 questions the clean app answers
// right, each with a fault on a known third: a retriever that misses, a generator that ignores
// its passages and answers from memory, one that reads only the last passage.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/headless_browser.h"
#include "cli/json_lines.h"
#include "cli/run_tala.h"
#include "support/temp_dir.h"

namespace tala {
namespace {

using nlohmann::json;
using tala::testing::RunTala;
using tala::testing::TempDir;

const std::string kSource = TALA_SOURCE_DIR;
const std::string kGolden = kSource + "/examples/data/golden_faults.jsonl";
const std::string kDocs = kSource + "/examples/data/knowledge_base.jsonl";
const std::string kApp = "/usr/bin/python3 " + kSource + "/examples/rag_app/rag_app.py jsonl";
const std::string kFaultyApp = "'exec:" + kApp + " --faults " + kGolden + "'";

std::vector<json> Rows(const std::string& path) { return testing::ReadJsonLines(path); }

// The cause each seeded fault should be found as.
std::string Expected(const std::string& fault) {
  if (fault == "retriever") return "retriever";
  if (fault == "ignore") return "parametric";
  if (fault == "last") return "ranking";
  return "generator";
}

TEST(DiagnoseTest, TheSeededCauseIsNamedForNineInTenFailingRowsAndTheWrongOneForFewerThan5) {
  TempDir dir;
  auto r = RunTala("diagnose " + kGolden + " --target " + kFaultyApp + " --docs " + kDocs +
                   " --json -q --out-dir " + dir.path() + "/d");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json report = json::parse(r.out);
  std::map<std::string, std::string> fault;
  for (const json& row : Rows(kGolden)) fault[row["id"]] = row["fault"];
  int named = 0, unknown = 0, wrong = 0;
  for (const json& row : report["rows"]) {
    const std::string cause = row["cause"];
    if (cause == Expected(fault[row["id"]])) {
      ++named;
    } else if (cause == "unknown") {
      ++unknown;
    } else {
      ++wrong;
    }
  }
  const int failing = report["failing"];
  ASSERT_GE(failing, 50) << r.out;  // nearly every seeded fault makes its answer wrong
  EXPECT_EQ(report["experimented"], failing);
  EXPECT_GE(named, 0.9 * failing) << r.out;
  EXPECT_LE(wrong, 0.05 * failing) << r.out;
  EXPECT_EQ(named + unknown + wrong, failing);
  int64_t counted = 0;
  for (const char* c : {"retriever", "ranking", "generator", "parametric", "unknown"}) {
    counted += report["causes"][c].get<int64_t>();
  }
  EXPECT_EQ(counted, failing);
  // At most three extra calls a diagnosed row.
  EXPECT_LE(report["calls"]["target_experiments"].get<int64_t>(), 3 * failing);
  EXPECT_EQ(report["calls"]["target_first"], 60);
  // Each diagnosed row carries its cause and the answers of its conditions in the results file.
  int annotated = 0;
  for (const json& row : Rows(dir.path() + "/d/results.jsonl")) {
    if (!row.contains("interventions")) continue;
    ++annotated;
    EXPECT_TRUE(row.contains("cause"));
    EXPECT_GE(row["interventions"].size(), 1u) << row.dump();
    for (const json& i : row["interventions"]) EXPECT_TRUE(i.contains("response"));
  }
  EXPECT_EQ(annotated, failing);
  // The HTML report's row detail shows them.
  if (std::filesystem::exists(tala::testing::kChromium)) {
    const std::string html = dir.path() + "/report.html";
    ASSERT_EQ(RunTala("report " + dir.path() + "/d/results.jsonl --html " + html).exit_code, 0);
    const std::string dom = tala::testing::DumpDom("file://" + html + "#selftest");
    EXPECT_NE(dom.find("experiments=1"), std::string::npos)
        << dom.substr(dom.find("SELFTEST"), 300);
    EXPECT_NE(dom.find("errors=0"), std::string::npos);
  }
  // The same seed and app give the same causes.
  auto again = RunTala("diagnose " + kGolden + " --target " + kFaultyApp + " --docs " + kDocs +
                       " --json -q --out-dir " + dir.path() + "/e");
  EXPECT_EQ(json::parse(again.out)["causes"], report["causes"]);
}

// Over HTTP, the default request carries the passages as "contexts"; a request template passes
// them by {{contexts}}. Both find the same causes as the exec target.
TEST(DiagnoseTest, OverHttpTheDefaultRequestAndATemplateCarryThePassages) {
  TempDir dir;
  const std::string serve = "/usr/bin/python3 " + kSource + "/examples/rag_app/rag_app.py serve " +
                            "--port 0 --faults " + kGolden;
  const std::string toml = dir.Write(
      "tala.toml",
      "[target]\nbody = { question = \"{{user_input}}\", contexts = \"{{contexts}}\" }\n");
  const std::string d = dir.path();
  std::string script =
      serve + " > " + d + "/port & app=$!; for i in $(seq 100); do grep -q " + "listening " + d +
      "/port && break; sleep 0.05; done; url=$(sed " + "'s/.*listening on //' " + d + "/port); " +
      TALA_BINARY_DIR + "/tala diagnose " + kGolden + " --target \"$url\" --docs " + kDocs +
      " --json -q --out-dir " + d + "/a > " + d + "/a.json && " + TALA_BINARY_DIR +
      "/tala diagnose " + kGolden + " --config " + toml + " --target \"$url\" --docs " + kDocs +
      " --json -q --out-dir " + d + "/b > " + d + "/b.json; rc=$?; kill $app; exit $rc";
  int rc = std::system(("bash " + dir.Write("http.sh", script)).c_str());
  ASSERT_EQ(WEXITSTATUS(rc), 0);
  const json a = json::parse(std::ifstream(d + "/a.json"));
  const json b = json::parse(std::ifstream(d + "/b.json"));
  EXPECT_FALSE(a.contains("fallback")) << a.dump();
  EXPECT_GE(a["causes"]["retriever"].get<int64_t>(), 15) << a.dump();
  EXPECT_GE(a["causes"]["parametric"].get<int64_t>(), 15) << a.dump();
  EXPECT_GE(a["causes"]["ranking"].get<int64_t>(), 15) << a.dump();
  EXPECT_EQ(b["causes"], a["causes"]);
}

TEST(DiagnoseTest, TheCleanAppHasNoFailureAndGoldPassagesComeFromItsOwnChunksWithoutDocs) {
  TempDir dir;
  auto r = RunTala("diagnose " + kGolden + " --target 'exec:" + kApp + "' -q --out-dir " +
                   dir.path() + "/d");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("60 rows: 60 answered and scored, 0 with an answer that is not right"),
            std::string::npos)
      << r.out;
  // Without --docs, the retriever's misses still get gold passages where the app returned that
  // chunk for some other question.
  r = RunTala("diagnose " + kGolden + " --target " + kFaultyApp + " --json -q --conditions gold " +
              "--sample 10 --seed 7 --out-dir " + dir.path() + "/e");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json report = json::parse(r.out);
  EXPECT_EQ(report["experimented"], 10);
  EXPECT_LE(report["calls"]["target_experiments"].get<int64_t>(), 10);
  int gold = 0;
  for (const json& row : report["rows"]) gold += row["conditions"].contains("gold") ? 1 : 0;
  EXPECT_GT(gold, 0) << r.out;
}

TEST(DiagnoseTest, ATargetThatCannotTakePassagesIsSaidOnceAndTheScoresDecide) {
  TempDir dir;
  // A request template without {{contexts}}: the app cannot be given passages.
  const std::string toml =
      dir.Write("tala.toml", "[target]\nbody = '{\"user_input\": \"{{user_input}}\"}'\n");
  auto r = RunTala("diagnose " + kGolden + " --config " + toml + " --target " + kFaultyApp +
                   " --docs " + kDocs + " --json -q --out-dir " + dir.path() + "/d");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json report = json::parse(r.out);
  EXPECT_NE(report["fallback"].get<std::string>().find("{{contexts}}"), std::string::npos);
  EXPECT_EQ(report["calls"]["target_experiments"], 0);
  // An app that answers from its own retrieval whatever it is given is found out by the passages
  // it says it used.
  const std::string stubborn =
      dir.Write("stubborn.py",
                "import json, sys\n"
                "for line in sys.stdin:\n"
                "    q = json.loads(line)\n"
                "    print(json.dumps({'id': q['id'], 'answer': 'It costs 9 euros.',\n"
                "                      'contexts': ['Tickets cost 9 euros.', 'Buses are red.']}),\n"
                "          flush=True)\n");
  r = RunTala("diagnose " + kGolden + " --target 'exec:/usr/bin/python3 " + stubborn + "' --docs " +
              kDocs + " --json -q --out-dir " + dir.path() + "/e");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  report = json::parse(r.out);
  EXPECT_NE(report["fallback"].get<std::string>().find("not those it was given"), std::string::npos)
      << r.out;
  EXPECT_EQ(report["agreement"]["compared"], 0);
}

TEST(DiagnoseTest, CiDiagnoseAddsTheCausesToTheJobSummaryWithoutCallingForTheAnswersAgain) {
  TempDir dir;
  auto r = RunTala("ci " + kGolden + " --target " + kFaultyApp + " --docs " + kDocs +
                   " --diagnose --min faithfulness=0.5 -q --out-dir " + dir.path() + "/ci");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("causes:"), std::string::npos) << r.out;
  std::ifstream in(dir.path() + "/ci/summary.md");
  const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(md.find("## Causes by experiment (tala diagnose)"), std::string::npos) << md;
  const json report = json::parse(std::ifstream(dir.path() + "/ci/diagnose/diagnose.json"));
  EXPECT_EQ(report["calls"]["target_first"], 0);  // tala ci's own answers were used
  EXPECT_GT(report["calls"]["target_experiments"].get<int64_t>(), 0);
  EXPECT_GE(report["causes"]["retriever"].get<int64_t>(), 15);
}

TEST(DiagnoseTest, DryRunCountsTheCallsAndWritesNothing) {
  TempDir dir;
  auto r = RunTala("diagnose " + kGolden + " --target " + kFaultyApp + " --dry-run --json " +
                   "--out-dir " + dir.path() + "/d");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json report = json::parse(r.out);
  EXPECT_EQ(report["dry_run"]["target_first"], 60);
  EXPECT_EQ(report["dry_run"]["target_experiments_at_most"], 180);
  EXPECT_EQ(report["dry_run"]["judge"], 0);  // the offline judge calls nothing
  EXPECT_FALSE(std::ifstream(dir.path() + "/d/results.jsonl").good());
  // Bad options are refused before anything is called.
  r = RunTala("diagnose " + kGolden + " --target " + kFaultyApp + " --conditions gold,twice " +
              "--out-dir " + dir.path() + "/d 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("unknown condition \"twice\""), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tala
