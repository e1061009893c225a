// End-to-end: the built binary on real files, checking exit codes and what a user sees.

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "cli/run_tala.h"
#include "support/temp_dir.h"

namespace tala {
namespace {

using tala::testing::RunTala;
using tala::testing::TempDir;

const std::string kGolden = std::string(TALA_SOURCE_DIR) + "/tests/golden/replay_metrics.jsonl";

TEST(ValidateCommandTest, BadRowPrintsFileLineFieldAndExits2) {
  TempDir dir;
  std::string path = dir.Write("data.jsonl",
                               "{\"user_input\":\"q\",\"response\":\"a\"}\n"
                               "{\"user_input\":\"q\",\"retrieved_contexts\":\"oops\"}\n");
  auto r = RunTala("validate " + path + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find(path + ":2: field \"retrieved_contexts\": expected an array of strings, "
                              "got a string"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("rows rejected: 1"), std::string::npos);
}

TEST(ValidateCommandTest, GoodFileExits0AndCountsMetrics) {
  auto r = RunTala("validate " + kGolden);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("faithfulness"), std::string::npos);
  EXPECT_NE(r.out.find("expected"), std::string::npos);  // metadata field listed
}

TEST(ValidateCommandTest, EmptyFileExits2) {
  TempDir dir;
  auto r = RunTala("validate " + dir.Write("e.jsonl", "") + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("holds no rows"), std::string::npos);
}

TEST(ValidateCommandTest, MissingFileExits2) {
  auto r = RunTala("validate /nonexistent/x.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("cannot open"), std::string::npos);
}

TEST(MetricsCommandTest, JsonListsEveryMetricWithItsDirection) {
  auto r = RunTala("metrics --json");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("\"name\":\"noise_sensitivity\""), std::string::npos);
  EXPECT_NE(r.out.find("\"direction\":\"lower\""), std::string::npos);
  EXPECT_NE(r.out.find("\"aliases\":[\"answer_relevancy\"]"), std::string::npos);
  EXPECT_NE(r.out.find("\"family\":\"retriever by ids (no judge)\",\"group\":\"ir\",\"core\":"
                       "false,\"by_default\":true"),
            std::string::npos);
  EXPECT_NE(r.out.find("\"family\":\"SQL and data (no judge)\",\"group\":\"sql\",\"core\":false,"
                       "\"by_default\":false"),
            std::string::npos);
  EXPECT_NE(r.out.find("\"name\":\"context_recall\""), std::string::npos);
  EXPECT_NE(r.out.find("\"group\":\"retrieval\",\"core\":true"), std::string::npos);
}

TEST(MetricsCommandTest, TheTableGroupsMetricsByFamily) {
  auto r = RunTala("metrics");
  EXPECT_EQ(r.exit_code, 0);
  size_t ids = r.out.find("== retriever by ids (no judge) == (--metrics ir)");
  ASSERT_NE(ids, std::string::npos);
  // Every IR metric under its heading, before the next one.
  size_t next = r.out.find("\n== ", ids + 3);
  for (const char* m : {"\nhit_rate\n", "\nmrr\n", "\nndcg\n"}) {
    size_t at = r.out.find(m);
    EXPECT_TRUE(at > ids && at < next) << m;
  }
  EXPECT_NE(r.out.find("default:   no (name it in --metrics)"), std::string::npos);
  EXPECT_NE(r.out.find("\nfaithfulness   (core)\n"), std::string::npos);
}

// The listings read in a terminal as --help does: wrapped at 100 columns, a field's later lines
// under its first.
TEST(MetricsCommandTest, ListingsWrapAt100Columns) {
  for (const char* cmd : {"metrics", "judges"}) {
    auto r = RunTala(cmd);
    ASSERT_EQ(r.exit_code, 0) << cmd;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      EXPECT_LE(line.size(), 100u) << cmd << ": " << line;
    }
  }
  auto r = RunTala("metrics");
  EXPECT_NE(
      r.out.find(
          "  misses:    whether the answer is there: it reads topic, the answer's kind, the words"),
      std::string::npos);
  EXPECT_NE(r.out.find("\n             "), std::string::npos);  // a continued field
}

TEST(EvalCommandTest, ReplayRunWritesOneResultPerRowAndASummary) {
  TempDir dir;
  std::string out = dir.path() + "/r.jsonl";
  auto r =
      RunTala("eval " + kGolden +
              " --judge replay --metrics faithfulness,context_precision --no-progress -o " + out);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("judge: replay"), std::string::npos);
  EXPECT_NE(r.out.find("context_precision"), std::string::npos);
  std::string results = dir.Read(out);
  std::ifstream golden(kGolden);
  std::string all((std::istreambuf_iterator<char>(golden)), std::istreambuf_iterator<char>());
  // One line per row, after the run manifest.
  EXPECT_EQ(results.rfind("{\"tala_manifest\":", 0), 0u);
  EXPECT_EQ(std::count(results.begin(), results.end(), '\n'),
            std::count(all.begin(), all.end(), '\n') + 1);
  EXPECT_NE(results.find("{\"id\":\"cp-ranks-1-2-4\",\"scores\":{\"faithfulness\":null,"
                         "\"context_precision\":0.9166666666666666}"),
            std::string::npos);
}

TEST(EvalCommandTest, BadRowsStopTheRunBeforeAnyScoring) {
  TempDir dir;
  std::string data = dir.Write("d.jsonl", "{\"response\":\"a\"}\n{\"response\":5}\n");
  std::string out = dir.path() + "/r.jsonl";
  auto r = RunTala("eval " + data + " --judge replay --no-progress -o " + out + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find(":2: field \"response\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--on-error skip"), std::string::npos);
  EXPECT_TRUE(dir.Read(out).empty());
}

TEST(EvalCommandTest, SkipPolicyScoresTheGoodRowsAndCountsTheBad) {
  TempDir dir;
  std::string data = dir.Write(
      "d.jsonl",
      "{\"retrieved_context_ids\":[\"a\"],\"reference_context_ids\":[\"a\"]}\n{\"response\":5}\n");
  std::string out = dir.path() + "/r.jsonl";
  auto r =
      RunTala("eval " + data + " --judge replay --on-error skip --no-progress -o " + out + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("1 skipped"), std::string::npos) << r.out;
  EXPECT_NE(dir.Read(out).find("\"id_based_context_precision\":1"), std::string::npos);
}

TEST(EvalCommandTest, ReadsStdin) {
  TempDir dir;
  std::string data = dir.Write(
      "d.jsonl", "{\"retrieved_context_ids\":[\"a\",\"b\"],\"reference_context_ids\":[\"a\"]}\n");
  // With the rows on stdout, the summary goes to stderr.
  auto r = RunTala("eval - --judge replay --json --no-progress -o - < " + data + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"id_based_context_precision\":0.5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"rows_scored\":1"), std::string::npos) << r.out;
}

TEST(EvalCommandTest, UnknownMetricIsAUsageError) {
  auto r = RunTala("eval " + kGolden +
                   " --judge replay --metrics faithfullness --no-progress -o /dev/null 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("unknown metric \"faithfullness\""), std::string::npos);
}

TEST(EvalCommandTest, Issue6_IrCheckMeansOverARun) {
  TempDir dir;
  std::string data = dir.Write(
      "ir.jsonl",
      "{\"retrieved_context_ids\":[\"c5\",\"c1\",\"c4\"],\"reference_context_ids\":[\"c1\",\"c2\"]}"
      "\n"
      "{\"retrieved_context_ids\":[\"c3\",\"c6\"],\"reference_context_ids\":[\"c3\"]}\n"
      "{\"retrieved_context_ids\":[\"c2\",\"c5\",\"c4\"],\"reference_context_ids\":[\"c5\"]}\n");
  auto r =
      RunTala("eval " + data + " --metrics recall,mrr --k 1,3 --json --no-progress -o /dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("{\"metric\":\"recall@3\",\"mean\":0.8333333333333334"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("{\"metric\":\"recall@1\",\"mean\":0.3333333333333333"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("{\"metric\":\"mrr\",\"mean\":0.6666666666666666"), std::string::npos)
      << r.out;
}

TEST(EvalCommandTest, DemoRunDiagnosesRowsAndReportsIntervals) {
  TempDir dir;
  std::string out = dir.path() + "/r.jsonl";
  auto r =
      RunTala("eval " + std::string(TALA_SOURCE_DIR) +
              "/examples/data/interactions.jsonl "
              "--metrics faithfulness,context_recall,context_precision --json --no-progress -o " +
              out);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"ci95\":["), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"principal_failure\":\"ranking noise\""), std::string::npos) << r.out;
  std::string results = dir.Read(out);
  EXPECT_NE(results.find("\"id\":\"demo-05\""), std::string::npos);
  size_t row5 = results.find("\"id\":\"demo-05\"");
  EXPECT_NE(results.find("\"diagnosis\":\"retriever miss\"", row5), std::string::npos);
}

TEST(PowerCommandTest, IssueChecksFromTheBinary) {
  EXPECT_NE(RunTala("power --p 0.8 --n 50").out.find("±0.111"), std::string::npos);
  EXPECT_NE(RunTala("power --p1 0.80 --p2 0.85").out.find("906 rows per system"),
            std::string::npos);
  EXPECT_NE(RunTala("power --p1 0.80 --p2 0.85 --paired --discordant 0.10").out.find("312 rows"),
            std::string::npos);
  EXPECT_EQ(RunTala("power --p1 0.8 --p2 0.85 --paired 2>&1").exit_code, 2);
  EXPECT_EQ(RunTala("power 2>&1").exit_code, 2);
}

std::string ResultsFile(const TempDir& dir, const char* name, double faithfulness, double noise,
                        double jitter) {
  std::string content;
  for (int i = 0; i < 30; ++i) {
    double j = ((i * 7919) % 11 - 5) * jitter;
    content += "{\"id\":\"r" + std::to_string(i) +
               "\",\"scores\":{\"faithfulness\":" + std::to_string(faithfulness + j) +
               ",\"noise_sensitivity\":" + std::to_string(noise) + ",\"bleu\":null}}\n";
  }
  return dir.Write(name, content);
}

TEST(CompareCommandTest, ARealDropIsCaughtAndNoiseIsNot) {
  TempDir dir;
  std::string base = ResultsFile(dir, "base.jsonl", 0.85, 0.30, 0.01);
  std::string drop = ResultsFile(dir, "drop.jsonl", 0.60, 0.10, 0.01);
  std::string same = ResultsFile(dir, "same.jsonl", 0.85, 0.30, 0.0);
  auto r = RunTala("compare " + base + " " + drop + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"metric\":\"faithfulness\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"verdict\":\"worse\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"verdict\":\"better\""), std::string::npos) << r.out;  // noise fell
  auto n = RunTala("compare " + base + " " + same + " --json");
  EXPECT_EQ(n.out.find("\"verdict\":\"worse\""), std::string::npos) << n.out;
  EXPECT_EQ(n.out.find("\"verdict\":\"better\""), std::string::npos) << n.out;
  EXPECT_EQ(RunTala("compare " + base + " /nonexistent.jsonl 2>&1").exit_code, 2);
  // The table leads with the verdict by half of the pipeline (issue 33): faithfulness fell and
  // noise_sensitivity fell (lower is better), both generator metrics.
  auto table = RunTala("compare " + base + " " + drop);
  EXPECT_EQ(table.out.rfind("verdict: generator better on noise_sensitivity -0.200 but worse on "
                            "faithfulness -0.250",
                            0),
            0u)
      << table.out;
  EXPECT_LT(table.out.find("verdict:"), table.out.find("metric "));
}

// Without the sentence encoder the offline judge falls back on hashed embeddings: the run warns
// once and its manifest says so.
TEST(EvalCommandTest, AMissingSentenceEncoderIsSaidOnceAndRecorded) {
  TempDir dir;
  std::string out = dir.path() + "/r.jsonl";
  ::setenv("TALA_SENTENCE_ENCODER", (dir.path() + "/none").c_str(), 1);
  auto r = RunTala("eval " + std::string(TALA_SOURCE_DIR) +
                   "/examples/data/interactions.jsonl -o " + out + " --no-progress 2>&1");
  ::unsetenv("TALA_SENTENCE_ENCODER");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  size_t first = r.out.find("sentence encoder is missing");
  EXPECT_NE(first, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("sentence encoder is missing", first + 1), std::string::npos) << r.out;
  EXPECT_NE(dir.Read("r.jsonl").find("\"embeddings\":\"hashed\""), std::string::npos);
  // Where the encoder is installed, resuming that file with it would mix two readings.
  const std::string data = std::string(TALA_SOURCE_DIR) + "/examples/data/interactions.jsonl";
  RunTala("eval " + data + " -o " + dir.path() + "/with.jsonl --no-progress -q");
  if (dir.Read("with.jsonl").find("\"embeddings\":\"use-lite") != std::string::npos) {
    auto resumed = RunTala("eval " + data + " -o " + out + " --resume --no-progress -q 2>&1");
    EXPECT_EQ(resumed.exit_code, 2) << resumed.out;
    EXPECT_NE(resumed.out.find("embeddings hashed, not use-lite-0.2.0"), std::string::npos)
        << resumed.out;
  }
}

// The encoder is read when a row first needs it: a run whose metrics embed nothing never reads
// it (so never pays for it), and a model that is there but unreadable fails, with its file named,
// only the rows and metrics that need it.
TEST(EvalCommandTest, TheSentenceEncoderIsReadOnlyWhenARowNeedsIt) {
  TempDir dir;
  std::ofstream(dir.path() + "/model.json") << "{ not the model";
  std::ofstream(dir.path() + "/vocab.json") << "{}";
  const std::string data = std::string(TALA_SOURCE_DIR) + "/examples/data/interactions.jsonl";
  ::setenv("TALA_SENTENCE_ENCODER", dir.path().c_str(), 1);
  auto faithful = RunTala("eval " + data + " -m faithfulness,context_recall -o " + dir.path() +
                          "/f.jsonl --no-progress 2>&1");
  auto relevant = RunTala("eval " + data + " -m faithfulness,response_relevancy -o " + dir.path() +
                          "/r.jsonl --no-progress 2>&1");
  ::unsetenv("TALA_SENTENCE_ENCODER");
  EXPECT_EQ(faithful.exit_code, 0) << faithful.out;
  EXPECT_EQ(faithful.out.find("sentence encoder"), std::string::npos) << faithful.out;
  EXPECT_EQ(relevant.exit_code, 3) << relevant.out;  // rows failed
  const std::string rows = dir.Read("r.jsonl");
  EXPECT_NE(rows.find("sentence encoder cannot be read: " + dir.path() + "/vocab.json"),
            std::string::npos)
      << rows.substr(0, 2000);
  EXPECT_NE(rows.find("\"scores\":{\"faithfulness\":1,"), std::string::npos)
      << rows.substr(0, 2000);
  EXPECT_NE(rows.find("\"failed\":[\"response_relevancy\"]"), std::string::npos)
      << rows.substr(0, 2000);
}

// The offline judge with its sentence encoder and without it (hashed embeddings) read relevance
// differently: their runs are not compared unless the user says so.
TEST(CompareCommandTest, RunsWithAndWithoutTheSentenceEncoderAreNotMixed) {
  TempDir dir;
  auto with = [&](const char* name, const char* embeddings) {
    std::string manifest = std::string("{\"tala_manifest\":{\"tala_version\":\"0.1.0\",") +
                           "\"judge\":\"offline\",\"embeddings\":\"" + embeddings +
                           "\",\"metrics\":{\"faithfulness\":\"1\"}}}\n";
    std::string rows;
    for (int i = 0; i < 10; ++i) {
      rows += "{\"id\":\"r" + std::to_string(i) + "\",\"scores\":{\"faithfulness\":0.5}}\n";
    }
    return dir.Write(name, manifest + rows);
  };
  std::string a = with("a.jsonl", "use-lite-0.2.0"), b = with("b.jsonl", "hashed");
  auto refused = RunTala("compare " + a + " " + b + " 2>&1");
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_NE(refused.out.find("embeddings use-lite-0.2.0 vs hashed"), std::string::npos)
      << refused.out;
  EXPECT_EQ(RunTala("compare " + a + " " + b + " --allow-version-mismatch 2>&1").exit_code, 0);
  EXPECT_EQ(RunTala("compare " + a + " " + with("c.jsonl", "use-lite-0.2.0") + " 2>&1").exit_code,
            0);
}

TEST(GateCommandTest, ExitCodesForMinimumsAndDrops) {
  TempDir dir;
  std::string base = ResultsFile(dir, "base.jsonl", 0.85, 0.30, 0.01);
  std::string drop = ResultsFile(dir, "drop.jsonl", 0.60, 0.10, 0.01);
  std::string noisy = ResultsFile(dir, "noisy.jsonl", 0.84, 0.30, 0.012);
  EXPECT_EQ(RunTala("gate " + base + " --min faithfulness=0.8").exit_code, 0);
  auto fail = RunTala("gate " + base + " --min faithfulness=0.9");
  EXPECT_EQ(fail.exit_code, 1);
  EXPECT_NE(fail.out.find("FAIL  faithfulness >= 0.9000"), std::string::npos) << fail.out;
  EXPECT_EQ(RunTala("gate " + base + " --min noise_sensitivity=0.2").exit_code,
            1);  // lower is better
  EXPECT_EQ(
      RunTala("gate " + drop + " --baseline " + base + " --max-drop faithfulness=0.05").exit_code,
      1);
  EXPECT_EQ(
      RunTala("gate " + noisy + " --baseline " + base + " --max-drop faithfulness=0.05").exit_code,
      0);
  EXPECT_EQ(RunTala("gate " + drop + " --baseline " + base + " --max-drop noise_sensitivity=0.0")
                .exit_code,
            0);
  EXPECT_EQ(RunTala("gate " + base + " --min faithfulness 2>&1").exit_code, 2);
  EXPECT_EQ(RunTala("gate " + base + " --max-drop faithfulness=0.1 2>&1").exit_code, 2);
  EXPECT_EQ(RunTala("gate " + base + " 2>&1").exit_code, 2);
  // A gate may name the metric by its alias; a metric the run lacks is an error naming the run's
  // metrics, never a pass.
  auto alias = RunTala("gate " + base + " --min noise_sensitivity_relevant=0.2");
  EXPECT_EQ(alias.exit_code, 1);
  EXPECT_NE(alias.out.find("FAIL  noise_sensitivity <= 0.2000"), std::string::npos) << alias.out;
  auto absent = RunTala("gate " + base + " --min context_recall=0.5 2>&1");
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_NE(absent.out.find("the run has no metric context_recall (its metrics: faithfulness, "
                            "noise_sensitivity, bleu)"),
            std::string::npos)
      << absent.out;
}

// The HTML report says what the offline judge only estimates, as the terminal summary does.
TEST(ReportCommandTest, TheHtmlReportCarriesTheOfflineJudgesNotes) {
  TempDir dir;
  const std::string results = dir.path() + "/r.jsonl", html = dir.path() + "/r.html";
  ASSERT_EQ(RunTala("eval " + std::string(TALA_SOURCE_DIR) +
                    "/examples/data/interactions.jsonl -q -o " + results + " --html " + html)
                .exit_code,
            0);
  std::ifstream in(html);
  std::stringstream page;
  page << in.rdbuf();
  EXPECT_NE(page.str().find("<section id=notes><h2>Notes</h2><ul><li>response_relevancy "
                            "(offline) estimates whether the response addresses the question"),
            std::string::npos);
  // How far to trust each offline metric, with the advice to use an LLM judge; the Markdown
  // summary says the same.
  EXPECT_NE(page.str().find("<h2>How far to trust the offline judge</h2>"), std::string::npos);
  EXPECT_NE(page.str().find("<li><b>faithfulness</b>: HaluEval QA, held-out half"),
            std::string::npos);
  EXPECT_NE(page.str().find("score with an LLM judge"), std::string::npos);
  auto md = RunTala("report " + results + " --markdown -");
  EXPECT_NE(md.out.find("### How far to trust the offline judge"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("- **context_recall**: HaluEval, held-out half"), std::string::npos)
      << md.out;
  // A run of another judge has no such section: the figures are the offline judge's.
  const std::string replayed = dir.path() + "/replay.jsonl";
  ASSERT_EQ(RunTala("eval " + std::string(TALA_SOURCE_DIR) +
                    "/examples/data/interactions.jsonl --judge replay -q -o " + replayed)
                .exit_code,
            0);
  auto replay = RunTala("report " + replayed + " --markdown -");
  EXPECT_NE(replay.out.find("| faithfulness |"), std::string::npos) << replay.out;
  EXPECT_EQ(replay.out.find("How far to trust"), std::string::npos) << replay.out;
}

TEST(ReportCommandTest, RendersWithoutAJudge) {
  TempDir dir;
  std::string base = ResultsFile(dir, "base.jsonl", 0.85, 0.30, 0.01);
  auto r = RunTala("report " + base + " --markdown - --csv " + dir.path() + "/r.csv");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("| faithfulness | 0.8"), std::string::npos) << r.out;
  EXPECT_EQ(dir.Read("r.csv").rfind("id,faithfulness,noise_sensitivity,bleu,diagnosis\n", 0), 0u);
  EXPECT_EQ(RunTala("report " + base + " 2>&1").exit_code, 2);
}

TEST(EvalCommandTest, HelpExplainsTheFlags) {
  auto r = RunTala("eval --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--on-error"), std::string::npos);
  EXPECT_NE(r.out.find("--metrics"), std::string::npos);
}

}  // namespace
}  // namespace tala

namespace tala {
namespace {

// Each subcommand's --help ends with two examples, the first of that very command, and wraps at
// 100 columns.
TEST(HelpTest, EverySubcommandEndsWithTwoExamplesOfItself) {
  for (const char* cmd :
       {"eval",        "validate", "calibrate", "compare", "gate",        "report",
        "power",       "metrics",  "judges",    "cache",   "cache stats", "cache clear",
        "cache merge", "run",      "ci",        "review",  "estimate",    "merge",
        "serve",       "export",   "diagnose"}) {
    auto help = testing::RunTala(std::string(cmd) + " --help");
    ASSERT_EQ(help.exit_code, 0) << cmd;
    std::vector<std::string> lines;
    std::istringstream in(help.out);
    for (std::string line; std::getline(in, line);) {
      EXPECT_LE(line.size(), 100u) << cmd << ": " << line;
      if (!line.empty()) lines.push_back(line);
    }
    ASSERT_GE(lines.size(), 3u) << cmd;
    EXPECT_EQ(lines[lines.size() - 3], "Examples:") << cmd << "\n" << help.out;
    EXPECT_EQ(lines[lines.size() - 2].rfind(std::string("  tala ") + cmd, 0), 0u) << cmd;
    EXPECT_EQ(lines.back().rfind("  ", 0), 0u) << cmd;  // "  OPENAI_API_KEY=... tala eval ..."
    EXPECT_NE(lines.back().find("tala "), std::string::npos) << cmd;
  }
}

// The CLI reference (docs/cli.md) must list every flag each subcommand accepts.
TEST(ReadmeTest, CliReferenceListsEveryFlag) {
  std::ifstream in(std::string(TALA_SOURCE_DIR) + "/docs/cli.md");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string reference = ss.str();
  ASSERT_NE(reference.find("# CLI reference"), std::string::npos);
  for (const char* cmd :
       {"eval",         "validate",       "calibrate",     "compare", "gate",
        "report",       "power",          "metrics",       "judges",  "cache stats",
        "cache clear",  "cache merge",    "run",           "ci",      "diagnose",
        "review",       "estimate",       "merge",         "history", "history add",
        "history show", "history report", "history prune", "testset", "testset accept",
        "testset remap"}) {
    EXPECT_NE(reference.find(std::string("`tala ") + cmd), std::string::npos) << cmd;
    auto help = testing::RunTala(std::string(cmd) + " --help");
    std::regex flag("--[a-z][a-z-]+");
    for (auto it = std::sregex_iterator(help.out.begin(), help.out.end(), flag);
         it != std::sregex_iterator(); ++it) {
      std::string f = it->str();
      if (f == "--help") continue;
      EXPECT_NE(reference.find(f), std::string::npos) << "tala " << cmd << " " << f;
    }
  }
}

}  // namespace
}  // namespace tala

namespace tala {
namespace {

const std::string kDemo = std::string(TALA_SOURCE_DIR) + "/examples/data/interactions.jsonl";

TEST(MergeCommandTest, ShardsRunAsCommandsMergeIntoTheSingleRunsSummary) {
  testing::TempDir dir;
  const std::string d = dir.path();
  auto single = testing::RunTala("eval " + kDemo + " -m faithfulness,hit_rate --no-progress -o " +
                                 d + "/one.jsonl");
  ASSERT_EQ(single.exit_code, 0) << single.out;
  for (int i = 0; i < 3; ++i) {
    auto part = testing::RunTala(
        "eval " + kDemo + " -m faithfulness,hit_rate --no-progress --shard " + std::to_string(i) +
        "/3 --shard-by hash -o " + d + "/p" + std::to_string(i) + ".jsonl 2>&1");
    ASSERT_EQ(part.exit_code, 0) << part.out;
  }
  auto merged = testing::RunTala("merge " + d + "/p2.jsonl " + d + "/p0.jsonl " + d +
                                 "/p1.jsonl.shard.json -o " + d + "/all.jsonl 2>&1");
  ASSERT_EQ(merged.exit_code, 0) << merged.out;
  // The same table, apart from the results path printed under it.
  EXPECT_EQ(single.out.substr(0, single.out.find("per-row results")),
            merged.out.substr(0, merged.out.find("per-row results")));
  auto missing =
      testing::RunTala("merge " + d + "/p0.jsonl " + d + "/p1.jsonl -o " + d + "/x.jsonl 2>&1");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.out.find("missing: 2/3"), std::string::npos) << missing.out;
  auto bad = testing::RunTala("eval " + kDemo + " --shard 3/3 -o " + d + "/y.jsonl 2>&1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find("must be below the count"), std::string::npos) << bad.out;
}

TEST(EvalCommandTest, RepeatsReportJudgeNoiseAndASuggestedGate) {
  testing::TempDir dir;
  auto r = testing::RunTala(
      "eval " + kDemo + " --metrics faithfulness,noise_sensitivity --repeats 3 --no-progress -o " +
      dir.path() + "/r.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // The offline judge is deterministic: no run-to-run noise, the gate sits at the mean.
  EXPECT_NE(r.out.find("faithfulness       runs 3  sd 0.0000  suggested gate >= 0.7168"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("noise_sensitivity  runs 3  sd 0.0000  suggested gate <= 0.1000"),
            std::string::npos)
      << r.out;
}

TEST(EvalCommandTest, PerMetricDiagnosisThresholdsChangeTheDiagnosis) {
  testing::TempDir dir;
  std::string base = "eval " + kDemo +
                     " --metrics faithfulness,context_recall,context_precision --no-progress -o " +
                     dir.path() + "/r.jsonl";
  auto normal = testing::RunTala(base);
  auto lenient = testing::RunTala(base + " --diagnose context_precision=0.1");
  EXPECT_NE(normal.out.find("ranking noise 6"), std::string::npos) << normal.out;
  EXPECT_EQ(lenient.out.find("ranking noise"), std::string::npos) << lenient.out;
  // Relative to a baseline: half a point below the baseline's means, nothing is ranking noise.
  // (Its own output is another file: an output that is an input is refused.)
  auto relative =
      testing::RunTala("eval " + kDemo +
                       " --metrics faithfulness,context_recall,context_precision --no-progress "
                       "-o " +
                       dir.path() + "/r2.jsonl --diagnose-baseline " + dir.path() +
                       "/r.jsonl --diagnose-margin 0.5");
  EXPECT_EQ(relative.exit_code, 0) << relative.out;
  EXPECT_EQ(relative.out.find("ranking noise"), std::string::npos) << relative.out;
  auto bad = testing::RunTala(base + " --diagnose context_precision=2 2>&1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find("--diagnose: expected METRIC=THRESHOLD"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace tala
