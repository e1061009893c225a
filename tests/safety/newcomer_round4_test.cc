// The CLI findings of shared/reports/newcomer-round4.md, through the real binary: tala ci's pages
// lead with the gates' verdict and name each worst row's question and what failed (N3, N8),
// `tala ci -q` is brief (N2), and a row's own metadata object is its metadata (N10).

#include <gtest/gtest.h>

#include "safety/safety_support.h"

namespace tala::safety {
namespace {

const std::string kGolden = std::string(TALA_SOURCE_DIR) + "/examples/data/golden.jsonl";
const std::string kBrokenApp = "'exec:/usr/bin/python3 " + std::string(TALA_SOURCE_DIR) +
                               "/examples/rag_app/rag_app.py jsonl --broken claim'";

// N3, N8: the broken example app, as docs/ci.md runs it.
TEST(NewcomerRound4Test, N3_N8_TheCiPagesShowTheVerdictAndWhatFailedInTheWorstRows) {
  TempDir dir;
  const std::string out = dir.path() + "/broken";
  auto r = RunTala("ci " + kGolden + " --target " + kBrokenApp +
                   " --min faithfulness=0.7 --out-dir " + out + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const std::string md = Slurp(out + "/summary.md");
  // The verdict first, then each failed gate's worst rows with the question and the claim.
  EXPECT_EQ(md.find("**FAILED**: 1 of 2 gates"), md.find("**FAILED**")) << md;
  EXPECT_LT(md.find("**FAILED**"), md.find("## tala:")) << md;
  EXPECT_NE(md.find("\"Can I buy a ticket on the tram?\""), std::string::npos) << md;
  EXPECT_NE(md.find("unsupported: \"Tickets are also sold at every kiosk in the city\""),
            std::string::npos)
      << md;
  const std::string html = Slurp(out + "/report.html");
  const size_t gates = html.find("<section id=gates class=\"fail\">");
  ASSERT_NE(gates, std::string::npos);
  EXPECT_LT(gates, html.find("<section id=pipeline")) << "the verdict leads the page";
  EXPECT_NE(html.find("<b>FAIL</b> faithfulness &gt;= 0.7000"), std::string::npos);
  EXPECT_NE(html.find("<q>Can I buy a ticket on the tram?</q>"), std::string::npos);
  // tala report --markdown of the same results names the question and the claim too.
  r = RunTala("report " + out + "/results.jsonl --markdown -");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("`demo-14` 0.351: \"Can I buy a ticket on the tram?\" — "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("unsupported: \"Tickets are also sold"), std::string::npos) << r.out;
}

// N2: `tala ci -q` prints the verdict, the metric lines and the gates, not the worst rows.
TEST(NewcomerRound4Test, N2_CiQuietIsBrief) {
  TempDir dir;
  auto loud = RunTala("ci " + kGolden + " --target " + kBrokenApp +
                      " --min faithfulness=0.7 --out-dir " + dir.path() + "/a 2>/dev/null");
  auto quiet = RunTala("ci " + kGolden + " --target " + kBrokenApp +
                       " --min faithfulness=0.7 -q --out-dir " + dir.path() + "/b 2>/dev/null");
  EXPECT_NE(loud.out.find("worst rows"), std::string::npos) << loud.out;
  EXPECT_EQ(quiet.out.find("worst rows"), std::string::npos) << quiet.out;
  EXPECT_NE(quiet.out.find("FAIL  faithfulness >= 0.7000"), std::string::npos) << quiet.out;
  EXPECT_LT(Lines(quiet.out).size(), Lines(loud.out).size());
}

// The half the headline names fails at least as many rows as the other half in the results file
// (N12), whatever the diagnoses are called.
void ExpectHeadlineAgreesWithThePicture(const std::string& data, const std::string& dir) {
  const std::string results = dir + "/agree.jsonl";
  auto r = RunTala("eval " + data + " -q --no-progress --overwrite -o " + results + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  int64_t retriever = 0, generator = 0;
  for (const std::string& line : Lines(Slurp(results))) {
    const size_t at = line.find("\"diagnosis\":\"");
    if (at == std::string::npos) continue;
    const std::string d = line.substr(at + 13, line.find('"', at + 13) - at - 13);
    retriever += d.rfind("retriever miss", 0) == 0 || d == "ranking noise";
    generator += d == "generator not grounded" || d == "off-topic answer";
  }
  if (retriever == 0 && generator == 0) return;
  const std::string named = retriever >= generator ? "retriever" : "generator";
  EXPECT_NE(r.out.find("diagnosis: the " + named + " is the principal failure"), std::string::npos)
      << data << ": retriever " << retriever << ", generator " << generator << "\n"
      << r.out;
}

// N12, N16 (issue 57): the headline and the pipeline picture agree on every example dataset and
// on rows without a reference, where an answer its chunks do not support is read against the
// chunks' relevance to the question (scored by default with the offline judge), never blamed on
// the generator unchecked.
TEST(NewcomerRound4Test, N12_N16_TheHeadlineNamesTheHalfThatFailsMostAndAMissIsNotTheGenerators) {
  TempDir dir;
  ExpectHeadlineAgreesWithThePicture(kDemoPath, dir.path());
  const std::string q = "\"user_input\":\"When was the Eiffel Tower completed?\"";
  const std::string good =
      "\"retrieved_contexts\":[\"The Eiffel Tower was completed in 1889 for "
      "the World's Fair in Paris.\"]";
  const std::string off =
      "\"retrieved_contexts\":[\"Bananas are rich in potassium and grow in "
      "tropical climates.\",\"The Great Wall of China is very long.\"]";
  const std::string right = "\"response\":\"The Eiffel Tower was completed in 1889.\"";
  const std::string wrong = "\"response\":\"The Eiffel Tower was completed in 1920 by Napoleon.\"";
  std::string rows;
  for (int i = 0; i < 3; ++i) rows += "{" + q + "," + right + "," + off + "}\n";   // misses
  for (int i = 0; i < 2; ++i) rows += "{" + q + "," + wrong + "," + good + "}\n";  // inventions
  rows += "{" + q + "," + right + "," + good + "}\n";
  const std::string data = dir.Write("unreferenced.jsonl", rows);
  ExpectHeadlineAgreesWithThePicture(data, dir.path());
  const std::string results = Slurp(dir.path() + "/agree.jsonl");
  EXPECT_NE(results.find("\"context_relevance\":"), std::string::npos) << results;
  const auto lines = Lines(results);
  ASSERT_EQ(lines.size(), 7u);  // the manifest and six rows
  for (int row = 1; row <= 3; ++row) {
    EXPECT_NE(lines[row].find("\"diagnosis\":\"retriever miss (no reference"), std::string::npos)
        << lines[row];
  }
  for (int row = 4; row <= 5; ++row) {
    EXPECT_NE(lines[row].find("\"diagnosis\":\"generator not grounded\""), std::string::npos)
        << lines[row];
  }
  // Scored without context_relevance, nothing tells the halves apart: unknown, and said so.
  auto r = RunTala("eval " + data + " -m faithfulness,response_relevancy --no-progress -o " +
                   dir.path() + "/bare.jsonl 2>&1");
  EXPECT_NE(r.out.find("cause unknown in 5 of 6 rows"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("generator not grounded"), std::string::npos) << r.out;
}

// N10: python.md's own example, `tala calibrate --human metadata.label`, finds the labels of a
// row's "metadata" object; tala testset reads its feedback.
TEST(NewcomerRound4Test, N10_ARowsMetadataObjectIsItsMetadata) {
  TempDir dir;
  std::string rows;
  int i = 0;
  for (const std::string& line : Lines(Demo())) {
    const std::string label = i % 3 ? "1" : "0";
    const std::string feedback = i % 4 ? "up" : "down";
    rows += line.substr(0, line.size() - 1) + ",\"metadata\":{\"label\":" + label +
            ",\"feedback\":\"" + feedback + "\"}}\n";
    ++i;
  }
  const std::string data = dir.Write("labelled.jsonl", rows);
  const std::string results = dir.path() + "/r.jsonl";
  ASSERT_EQ(RunTala("eval " + data + " -m faithfulness -q --no-progress -o " + results).exit_code,
            0);
  EXPECT_NE(Slurp(results).find("\"label\":0,\"feedback\":\"down\"}"), std::string::npos);
  auto r =
      RunTala("calibrate " + results + " --human metadata.label --judge scores.faithfulness 2>&1");
  EXPECT_EQ(r.out.find("no row has both"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kappa"), std::string::npos) << r.out;
  r = RunTala("testset --logs " + data + " --docs " + std::string(TALA_SOURCE_DIR) +
              "/examples/data/knowledge_base.jsonl --size 5 --no-progress -o " + dir.path() +
              "/t.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("failures: 6 logged rows failed"), std::string::npos) << r.out;
}

// N11: pandas' to_csv() writes the index as an unnamed first column; those labels are the rows'
// ids (not metadata named ""), so tala's row "7" is pandas' df.loc[7].
TEST(NewcomerRound4Test, N11_APandasIndexColumnGivesTheIds) {
  TempDir dir;
  const std::string csv =
      dir.Write("export.csv",
                ",user_input,response,retrieved_contexts\n"
                "5,Where is it?,It is in Paris.,\"['It is in Paris.']\"\n"
                "7,When was it built?,In 1889.,\"['It was completed in 1889.']\"\n");
  const std::string out = dir.path() + "/r.jsonl";
  auto r = RunTala("eval " + csv + " -m faithfulness -q --no-progress -o " + out + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string results = Slurp(out);
  EXPECT_NE(results.find("{\"id\":\"5\""), std::string::npos) << results;
  EXPECT_NE(results.find("{\"id\":\"7\""), std::string::npos) << results;
  EXPECT_EQ(results.find("\"\":"), std::string::npos) << "no metadata named \"\"";
}

}  // namespace
}  // namespace tala::safety
