// Numbers that cannot be right are not printed as numbers, rows pair by identity, and what a
// user reads says what happened. F1-F6, F8, F12, F13, F17-F19, F22, F23, F24, F27, F30, F31,
// F32-F36, F38, N8, N11-N13.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "safety/safety_support.h"

namespace tala::safety {
namespace {

const bool kKeySet = ::setenv("OPENAI_API_KEY", "x", 1) == 0;

std::string OneRow() { return Lines(Demo())[0] + "\n"; }

// The demo rows with their "id" fields removed (as most Ragas datasets are), each question once,
// optionally reversed.
std::string WithoutIds(bool reversed) {
  std::vector<std::string> rows;
  std::set<std::string> questions;
  for (std::string row : Lines(Demo())) {
    size_t at = row.find("\"id\": \"");
    size_t end = row.find("\", ", at);
    row.erase(at, end + 3 - at);
    size_t q = row.find("\"user_input\"");
    if (questions.insert(row.substr(q, row.find("\", ", q) - q)).second) rows.push_back(row);
  }
  if (reversed) std::reverse(rows.begin(), rows.end());
  std::string out;
  for (const std::string& r : rows) out += r + "\n";
  return out;
}

TEST(NumbersTest, F1_AnUnknownCommandIsNamed) {
  auto r = RunTala("evl data.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("unknown command \"evl\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("eval"), std::string::npos) << r.out;
}

TEST(NumbersTest, F2_OneRowIntervalIsNotShownWithZeroWidth) {
  TempDir dir;
  auto r = RunTala("eval " + dir.Write("one.jsonl", OneRow()) +
                   " -m response_relevancy,bleu -q -o " + dir.path() + "/r.jsonl");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("n too small"), std::string::npos) << r.out;
  auto md = RunTala("report " + dir.path() + "/r.jsonl --markdown -");
  EXPECT_NE(md.out.find("n too small"), std::string::npos) << md.out;
}

TEST(NumbersTest, F3_GradedFaithfulnessSaysItIsGraded) {
  TempDir dir;
  const std::string museum =
      "{\"id\":\"m\",\"user_input\":\"How much is entry?\",\"response\":\"Entry costs 12 euros "
      "for children.\",\"retrieved_contexts\":[\"The museum is open from 9am to 5pm on weekdays. "
      "Entry costs 12 euros for adults.\"]}\n";
  const std::string out = dir.path() + "/r.jsonl";
  ASSERT_EQ(
      RunTala("eval " + dir.Write("m.jsonl", museum) + " -m faithfulness -q -o " + out).exit_code,
      0);
  const std::string text = Slurp(out);
  if (text.find("\"faithfulness\":1,") == std::string::npos &&
      text.find("\"faithfulness\":0,") == std::string::npos) {
    EXPECT_NE(text.find("graded support"), std::string::npos) << text;
  }
}

TEST(NumbersTest, F4_PandasListReprInCsvIsRead) {
  TempDir dir;
  const std::string csv =
      dir.Write("ragas.csv",
                ",user_input,response,retrieved_contexts\n"
                "0,Where is it?,It is in Paris.,\"['It is in Paris.', \"\"Paris, France\"\"]\"\n");
  auto r = RunTala("eval " + csv + " -m faithfulness -q -o " + dir.path() + "/r.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const std::string bad = dir.Write("bad.csv",
                                    "user_input,response,retrieved_contexts\n"
                                    "q,r,\"[1, 'two']\"\n");
  r = RunTala("validate " + bad + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("json.dumps"), std::string::npos) << r.out;
}

// F5 was a confident 0 for a verbatim-supported Japanese answer (and a "retriever miss"). It was
// first made null; since issue 34 the offline judge reads the row's words (ICU's word breaks) in
// its own language and scores it.
TEST(NumbersTest, F5_TextWithoutSpacesIsReadByItsWords) {
  TempDir dir;
  const std::string cjk = dir.Write("cjk.jsonl",
                                    "{\"id\":\"t\",\"user_input\":\"東京の人口は？\",\"response\":"
                                    "\"東京の人口は約1400万人です。\","
                                    "\"retrieved_contexts\":[\"東京都の人口は約1400万人である。\"],"
                                    "\"reference\":\"約1400万人\"}\n");
  const std::string out = dir.path() + "/r.jsonl";
  auto r = RunTala("eval " + cjk + " -m faithfulness,context_recall,rouge_score -q -o " + out);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const std::string text = Slurp(out);
  EXPECT_EQ(text.find("\"faithfulness\":null"), std::string::npos) << text;
  EXPECT_EQ(text.find("\"faithfulness\":0,"), std::string::npos) << text;
  EXPECT_EQ(text.find("\"context_recall\":0,"), std::string::npos) << text;
  EXPECT_EQ(text.find("retriever miss"), std::string::npos) << text;
}

// F6: the same text with a precomposed "é" and with "e" + a combining accent is equal to the
// string metrics, as any reader sees it.
TEST(NumbersTest, F6_CanonicallyEqualTextIsEqual) {
  TempDir dir;
  const std::string data =
      dir.Write("nfd.jsonl",
                "{\"id\":\"a\",\"user_input\":\"q\",\"response\":\"Caf\u00e9 cr\u00e8me\","
                "\"reference\":\"Cafe\u0301 cre\u0300me\"}\n");
  const std::string out = dir.path() + "/r.jsonl";
  auto r =
      RunTala("eval " + data +
              " -m exact_match,string_presence,non_llm_string_similarity --no-progress -q -o " +
              out + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string results = Slurp(out);
  EXPECT_NE(results.find("\"exact_match\":1"), std::string::npos) << results;
  EXPECT_NE(results.find("\"string_presence\":1"), std::string::npos) << results;
  EXPECT_NE(results.find("\"non_llm_string_similarity\":1"), std::string::npos) << results;
}

TEST(NumbersTest, F8_ReportTellsFailedFromUndefined) {
  TempDir dir;
  std::string url;
  auto broken = testing::StartMockJudge({"--always", "500"}, &url);
  const std::string out = dir.path() + "/f.jsonl";
  RunTala("eval " + dir.Write("d.jsonl", Demo()) + " --judge openai:m --base-url " + url +
          " -m faithfulness --cache off --max-retries 0 -q -o " + out);
  auto md = RunTala("report " + out + " --markdown -");
  EXPECT_NE(md.out.find("| failed |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| faithfulness | – | – | 0 | 0 | 22 |"), std::string::npos) << md.out;
}

TEST(NumbersTest, F12_UnusableRepliesAreCountedAndStopTheRun) {
  TempDir dir;
  std::string url;
  auto prose = testing::StartMockJudge({"--always", "prose"}, &url);
  std::string rows;
  for (int i = 0; i < 50; ++i) {
    std::string row = Lines(Demo())[i % 22];
    row.replace(row.find("\"demo-") + 1, 7, "p" + std::to_string(100 + i));
    rows += row + "\n";
  }
  auto r = RunTala("eval " + dir.Write("d.jsonl", rows) + " --judge openai:m --base-url " + url +
                   " -m faithfulness --cache off --max-in-flight 1 -q -o " + dir.path() +
                   "/r.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.out.find("replies were all unusable"), std::string::npos) << r.out;
  // Stopped long before 50 rows were paid for.
  EXPECT_LT(Count(Slurp(dir.path() + "/r.jsonl"), "{\"id\":"), 50u);
}

TEST(NumbersTest, F13_F17_MessagesCarryNoCodePrefix) {
  TempDir dir;
  for (const std::string& args : {"eval " + dir.Write("d.jsonl", Demo()) + " --metrics nonexistent",
                                  std::string("validate /nonexistent/x.jsonl"),
                                  "validate " + dir.path() + "/d.jsonl --format xml"}) {
    auto r = RunTala(args + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << args;
    for (const char* prefix : {"invalid argument:", "not found:", "i/o error:"}) {
      EXPECT_EQ(r.out.find(prefix), std::string::npos) << args << "\n" << r.out;
    }
  }
}

TEST(NumbersTest, F18_AHugeNumberSaysWhatIsWrongAndHowToKeepIt) {
  TempDir dir;
  auto r = RunTala("validate " +
                   dir.Write("n.jsonl",
                             "{\"id\":123456789012345678901234567890,\"user_input\":"
                             "\"q\",\"response\":\"r\"}\n") +
                   " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("n.jsonl:1: a number too large to read"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("write it as a string"), std::string::npos) << r.out;
}

TEST(NumbersTest, F19_TextAfterAJsonArrayIsAnError) {
  TempDir dir;
  auto r = RunTala("validate " +
                   dir.Write("t.json",
                             "[{\"user_input\":\"q\",\"response\":\"r\",\"retrieved_contexts\":"
                             "[\"a\"]}] trailing\n") +
                   " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("text after the closing ']'"), std::string::npos) << r.out;
}

TEST(NumbersTest, F22_ResultsOnStdoutAreNotFollowedByTheSummary) {
  auto r = RunTala("eval " + kDemoPath + " -o - -m bleu -q 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0);
  for (const std::string& line : Lines(r.out)) EXPECT_EQ(line.front(), '{') << line;
  EXPECT_EQ(Lines(r.out).size(), 23u);  // the manifest and 22 rows
}

TEST(NumbersTest, F23_TheHtmlReportLeadsWithTheDiagnosis) {
  TempDir dir;
  const std::string html = dir.path() + "/demo.html";
  ASSERT_EQ(
      RunTala("eval " + kDemoPath + " -q -o " + dir.path() + "/r.jsonl --html " + html).exit_code,
      0);
  const std::string page = Slurp(html);
  size_t diagnosis = page.find("principal failure");
  size_t metrics = page.find("<h2>Metrics</h2>");
  ASSERT_NE(diagnosis, std::string::npos);
  ASSERT_NE(metrics, std::string::npos);
  EXPECT_LT(diagnosis, metrics);
  EXPECT_NE(page.find("class=worst"), std::string::npos);
}

TEST(NumbersTest, F24_N8_ImpossibleUsageIsClampedWithAWarning) {
  TempDir dir;
  std::string url;
  auto mock = testing::StartMockJudge({"--always", "huge-usage"}, &url);
  auto r = RunTala("eval " + dir.Write("d.jsonl", Demo()) + " --judge openai:gpt-4o-mini " +
                   "--base-url " + url + " -m faithfulness --cache off -q --json -o " + dir.path() +
                   "/r.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("impossible token usage"), std::string::npos) << r.out;
  // 2^40 tokens a reply would be over a million dollars; clamped, it stays below one.
  size_t at = r.out.find("\"cost_usd\":");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_LT(std::stod(r.out.substr(at + 11)), 1.0) << r.out;
}

TEST(NumbersTest, F27_IdlessRowsPairByTheirQuestionNotTheirPosition) {
  TempDir dir;
  const std::string base = dir.path() + "/rb.jsonl", cand = dir.path() + "/rc.jsonl";
  const std::string metrics = " -m faithfulness,context_recall,bleu -q -o ";
  ASSERT_EQ(RunTala("eval " + dir.Write("b.jsonl", WithoutIds(false)) + metrics + base).exit_code,
            0);
  ASSERT_EQ(RunTala("eval " + dir.Write("c.jsonl", WithoutIds(true)) + metrics + cand).exit_code,
            0);
  auto r = RunTala("compare " + base + " " + cand + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("paired by their question"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("moved most"), std::string::npos) << r.out;  // the same rows: no moves
  auto g = RunTala("gate " + cand + " --baseline " + base + " --max-drop faithfulness=0 2>&1");
  EXPECT_EQ(g.exit_code, 0) << g.out;
  EXPECT_TRUE(g.out.find("drop 0.0000,") != std::string::npos ||
              g.out.find("drop -0.0000,") != std::string::npos)
      << g.out;
  // A repeated question is ambiguous: refused, unless paired by order (checked).
  std::string twice = WithoutIds(false);
  twice += Lines(twice)[0] + "\n";
  const std::string t1 = dir.path() + "/t1.jsonl", t2 = dir.path() + "/t2.jsonl";
  ASSERT_EQ(RunTala("eval " + dir.Write("t.jsonl", twice) + metrics + t1).exit_code, 0);
  ASSERT_EQ(RunTala("eval " + dir.path() + "/t.jsonl" + metrics + t2).exit_code, 0);
  r = RunTala("compare " + t1 + " " + t2 + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--pair-by-order"), std::string::npos) << r.out;
  r = RunTala("compare " + t1 + " " + t2 + " --pair-by-order 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST(NumbersTest, F30_RepeatsCountEveryCall) {
  TempDir dir;
  std::string url;
  const std::string log = dir.path() + "/arrivals.txt";
  auto mock = testing::StartMockJudge({"--arrival-log", log}, &url);
  std::string ten;
  for (size_t i = 0; i < 10; ++i) ten += Lines(Demo())[i] + "\n";
  auto r = RunTala("eval " + dir.Write("d.jsonl", ten) + " --judge openai:gpt-4o-mini " +
                   "--base-url " + url + " -m faithfulness --cache off --repeats 3 -q --json -o " +
                   dir.path() + "/r.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const size_t sent = Lines(Slurp(log)).size();
  size_t at = r.out.find("\"requests\":");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_EQ(std::stoul(r.out.substr(at + 11)), sent) << r.out;
  EXPECT_EQ(sent % 3, 0u);
}

TEST(NumbersTest, F31_F35_HelpWrapsTeachesAndSaysWhatHtmlCosts) {
  for (const char* args : {"--help", "eval --help", "report --help", "gate --help"}) {
    auto r = RunTala(std::string(args) + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << args;
    for (const std::string& line : Lines(r.out)) EXPECT_LE(line.size(), 110u) << args << line;
    EXPECT_NE(r.out.find("Examples:"), std::string::npos) << args;
  }
  auto eval = RunTala("eval --help");
  EXPECT_NE(eval.out.find("--html keeps every row in memory"), std::string::npos);
  auto report = RunTala("report --help");
  EXPECT_NE(report.out.find("HTML report"), std::string::npos);
}

// The report's museum rows: every flipped fact is refuted (under 0.5, "0 of 1 claims
// supported"), the faithful answers are not.
TEST(NumbersTest, F32_NegationsAntonymsAndSubstitutionsAreRefuted) {
  TempDir dir;
  const std::string context =
      "The museum is open from 9am to 5pm on weekdays. It is closed on Mondays. Entry costs 12 "
      "euros for adults.";
  const std::vector<std::pair<std::string, bool>> rows = {
      {"The museum is open from 9am to 5pm on weekdays.", true},
      {"No, it is closed on Mondays.", true},
      {"The museum is not open on weekdays.", false},
      {"It is open on Mondays.", false},
      {"Entry is free for adults.", false},
      {"Entry costs 12 euros for children.", false},
      {"The museum is open from 9am to 7pm on weekdays.", false},
      {"Entry costs 15 euros for adults.", false}};
  std::string data;
  for (size_t i = 0; i < rows.size(); ++i) {
    data += "{\"id\":\"m" + std::to_string(i) +
            "\",\"user_input\":\"Tell me about the museum.\",\"response\":\"" + rows[i].first +
            "\",\"retrieved_contexts\":[\"" + context + "\"]}\n";
  }
  const std::string in = dir.Write("offl.jsonl", data), out = dir.path() + "/r.jsonl";
  ASSERT_EQ(RunTala("eval " + in + " --metrics faithfulness -q -o " + out).exit_code, 0);
  const std::vector<std::string> lines = Lines(Slurp(out));
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string id = "\"id\":\"m" + std::to_string(i) + "\"";
    auto line = std::find_if(lines.begin(), lines.end(),
                             [&](const std::string& l) { return l.find(id) != std::string::npos; });
    ASSERT_NE(line, lines.end()) << id;
    if (rows[i].second) {
      EXPECT_NE(line->find("\"faithfulness\":1}"), std::string::npos) << rows[i].first << *line;
    } else {
      EXPECT_NE(line->find("0 of 1 claims supported"), std::string::npos) << rows[i].first << *line;
    }
  }
}

TEST(NumbersTest, F33_GateFailsWhenRowsFailed) {
  TempDir dir;
  const std::string out = dir.path() + "/r.jsonl";
  ASSERT_EQ(RunTala("eval " + kDemoPath + " -m faithfulness -q -o " + out).exit_code, 0);
  // Mark two rows as failed, as a run with judge failures writes them.
  std::vector<std::string> lines = Lines(Slurp(out));
  int marked = 0;
  std::string text;
  for (std::string& line : lines) {
    if (marked < 2 && line.rfind("{\"id\":", 0) == 0) {
      line.replace(line.find("\"scores\":{\"faithfulness\":") + 25,
                   line.find('}', line.find("\"scores\":")) -
                       (line.find("\"scores\":{\"faithfulness\":") + 25),
                   "null");
      line.insert(line.size() - 1, ",\"failed\":[\"faithfulness\"]");
      ++marked;
    }
    text += line + "\n";
  }
  dir.Write("r.jsonl", text);
  auto g = RunTala("gate " + out + " --min faithfulness=0.1 2>&1");
  EXPECT_EQ(g.exit_code, 1) << g.out;
  EXPECT_NE(g.out.find("(2 failed)"), std::string::npos) << g.out;
  EXPECT_NE(g.out.find("2 rows have judge failures"), std::string::npos) << g.out;
  g = RunTala("gate " + out + " --min faithfulness=0.1 --max-failed-rows 2 2>&1");
  EXPECT_EQ(g.exit_code, 0) << g.out;
}

TEST(NumbersTest, F34_ResponseRelevancyReasonEndsWithItsValue) {
  TempDir dir;
  const std::string out = dir.path() + "/r.jsonl";
  ASSERT_EQ(RunTala("eval " + kDemoPath + " -m response_relevancy -q -o " + out).exit_code, 0);
  const std::string text = Slurp(out);
  EXPECT_EQ(text.find("mean cosine\""), std::string::npos);
  // The offline judge's reason opens with its value and says what it read (issue 52), never
  // the wording of generated questions it does not generate.
  EXPECT_NE(text.find("offline reading 0."), std::string::npos);
  EXPECT_EQ(text.find("generated questions committal"), std::string::npos);
}

TEST(NumbersTest, F36_CsvCellsThatLookLikeFormulasAreNeutralised) {
  TempDir dir;
  const std::string data =
      dir.Write("d.jsonl",
                "{\"id\":\"=HYPERLINK(\\\"http://evil\\\",\\\"x\\\")\",\"user_input\":\"=1+1\","
                "\"response\":\"@SUM(1)\",\"reference\":\"@SUM(1)\"}\n");
  ASSERT_EQ(RunTala("eval " + data + " -m exact_match -q -o " + dir.path() + "/r.jsonl --csv " +
                    dir.path() + "/r.csv")
                .exit_code,
            0);
  const std::string csv = Slurp(dir.path() + "/r.csv");
  EXPECT_NE(csv.find("\"'=HYPERLINK("), std::string::npos) << csv;
  EXPECT_EQ(csv.find("\n=HYPERLINK"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("\n\"=HYPERLINK"), std::string::npos) << csv;
}

TEST(NumbersTest, F38_ASemicolonSeparatedFileIsCalledOut) {
  TempDir dir;
  const std::string semi =
      dir.Write("semi.csv", "user_input;response;retrieved_contexts\nq;r;[\"a\"]\n");
  auto r = RunTala("validate " + semi + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("semicolon-separated"), std::string::npos) << r.out;
  r = RunTala("eval " + semi + " -o " + dir.path() + "/r.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("semicolon-separated"), std::string::npos) << r.out;
}

TEST(NumbersTest, N11_F25_ZeroEmbeddingsGiveNullWithTheReason) {
  TempDir dir;
  std::string url;
  auto mock = testing::StartMockJudge({"--always", "zero-vectors"}, &url);
  const std::string out = dir.path() + "/r.jsonl";
  RunTala("eval " + dir.Write("d.jsonl", Demo()) + " --judge openai:m --base-url " + url +
          " -m response_relevancy,semantic_similarity --cache off --max-retries 0 -q -o " + out);
  const std::string text = Slurp(out);
  EXPECT_EQ(text.find("\"response_relevancy\":0,"), std::string::npos) << text.substr(0, 2000);
  EXPECT_EQ(text.find("\"semantic_similarity\":0,"), std::string::npos);
  EXPECT_NE(text.find("the embeddings server returned a zero vector"), std::string::npos)
      << text.substr(0, 2000);
}

TEST(NumbersTest, N12_LabelsOutsideTheRangeOrTwiceAreRefused) {
  TempDir dir;
  const std::string res = dir.path() + "/r.jsonl";
  ASSERT_EQ(RunTala("eval " + kDemoPath + " -m faithfulness -q -o " + res).exit_code, 0);
  const std::string dup = dir.Write("dup.jsonl",
                                    "{\"id\":\"demo-01\",\"faithfulness\":1}\n"
                                    "{\"id\":\"demo-01\",\"faithfulness\":0}\n");
  const std::string seven = dir.Write("seven.jsonl",
                                      "{\"id\":\"demo-01\",\"faithfulness\":1}\n"
                                      "{\"id\":\"demo-03\",\"faithfulness\":7}\n");
  for (const std::string& labels : {dup, seven}) {
    for (const std::string& cmd :
         {"estimate " + res + " --labels " + labels + " --metric faithfulness",
          "calibrate " + res + " --labels " + labels + " --metric faithfulness"}) {
      auto r = RunTala(cmd + " 2>&1");
      EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.out;
    }
  }
  auto r = RunTala("estimate " + res + " --labels " + dup + " --metric faithfulness 2>&1");
  EXPECT_NE(r.out.find("labelled again (first on line 1)"), std::string::npos) << r.out;
  r = RunTala("estimate " + res + " --labels " + seven + " --metric faithfulness 2>&1");
  EXPECT_NE(r.out.find("outside the values faithfulness takes [0, 1]"), std::string::npos) << r.out;
}

TEST(NumbersTest, N13_CiWhoseTargetAnswersNothingStillWritesItsSummary) {
  TempDir dir;
  const std::string garbage = dir.Write("garbage.sh", "#!/bin/sh\nread line\necho not json\n");
  ::chmod(garbage.c_str(), 0755);
  const std::string out = dir.path() + "/bad";
  auto r =
      RunTala("ci " + dir.Write("g.jsonl", "{\"id\":\"g1\",\"user_input\":\"q\"}\n") +
              " --target exec-once:" + garbage + " --max-retries 0 --out-dir " + out + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(Exists(out + "/summary.md"));
  EXPECT_TRUE(Exists(out + "/junit.xml"));
  EXPECT_NE(Slurp(out + "/summary.md").find("rows failed at the target"), std::string::npos);
}

}  // namespace
}  // namespace tala::safety
