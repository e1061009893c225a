// The trust loop end to end: tala review's page labelled by key presses in headless Chromium,
// its export read by tala calibrate --labels and tala estimate; refusals; judge drift.

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "cli/headless_browser.h"
#include "cli/run_tala.h"
#include "support/temp_dir.h"

namespace tala::testing {
namespace {

using nlohmann::json;

const std::string kDemo = std::string(TALA_SOURCE_DIR) + "/examples/data/interactions.jsonl";

std::string Unescape(std::string s) {
  const std::pair<const char*, const char*> entities[] = {
      {"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&#39;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities) {
    for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += std::strlen(to)) {
      s.replace(at, std::strlen(from), to);
    }
  }
  return s;
}

std::string Results(const TempDir& dir) {
  std::string results = dir.path() + "/results.jsonl";
  auto eval = RunTala("eval " + kDemo + " --metrics faithfulness,context_recall --no-progress -o " +
                      results + " 2>&1");
  EXPECT_EQ(eval.exit_code, 0) << eval.out;
  return results;
}

TEST(ReviewTest, ThreeRowsLabelledByKeyPressesExportAndCalibrateReadsThem) {
  if (!std::filesystem::exists(kChromium)) {
    GTEST_SKIP() << "chromium is not installed (make test-deps installs it)";
  }
  TempDir dir;
  std::string results = Results(dir), page = dir.path() + "/queue.html";
  auto review =
      RunTala("review " + results + " --n 8 --pick random --seed 3 --out " + page + " 2>&1");
  ASSERT_EQ(review.exit_code, 0) << review.out;
  EXPECT_NE(review.out.find("8 of 20 rows with faithfulness picked (random, seed 3)"),
            std::string::npos)
      << review.out;
  std::ifstream in(page);
  std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* fetch : {"src=\"http", "href=\"http", "fetch(", "XMLHttpRequest", "<link"}) {
    EXPECT_EQ(html.find(fetch), std::string::npos) << "the page must not fetch: " << fetch;
  }
  std::string dom = DumpDom("file://" + page + "#selftest");
  EXPECT_NE(dom.find("SELFTEST labelled=3 exported=3 errors=0"), std::string::npos)
      << dom.substr(0, 2000);
  std::smatch m;
  std::string tail = dom;
  ASSERT_TRUE(std::regex_search(tail, m, std::regex("<pre id=\"selftest-export\">([^<]*)</pre>")));
  std::string exported = Unescape(m[1].str());
  std::string labels = dir.Write("labels.jsonl", exported);
  std::istringstream lines(exported);
  std::string header;
  std::getline(lines, header);
  json h = json::parse(header)["tala_labels"];
  EXPECT_EQ(h["pick"], "random");
  EXPECT_EQ(h["seed"], 3);
  EXPECT_EQ(h["metric"], "faithfulness");
  int rows = 0;
  for (std::string line; std::getline(lines, line); ++rows) {
    json row = json::parse(line);
    EXPECT_TRUE(row.contains("id") && row.contains("faithfulness")) << line;
    EXPECT_EQ(row["labeller"], "selftest");
  }
  EXPECT_EQ(rows, 3);
  auto calibrate =
      RunTala("calibrate " + results + " --labels " + labels + " --metric faithfulness 2>&1");
  EXPECT_EQ(calibrate.exit_code, 0) << calibrate.out;
  EXPECT_NE(calibrate.out.find("n: 3 rows"), std::string::npos) << calibrate.out;
  EXPECT_NE(calibrate.out.find("claims: people agree with"), std::string::npos) << calibrate.out;
  auto estimate =
      RunTala("estimate " + results + " --labels " + labels + " --metric faithfulness --json");
  ASSERT_EQ(estimate.exit_code, 0) << estimate.out;
  json e = json::parse(estimate.out);
  for (const char* key :
       {"metric", "n_labelled", "n_total", "ppi_mean", "ppi_ci", "judge_mean", "human_mean"}) {
    EXPECT_TRUE(e.contains(key)) << key;
  }
  EXPECT_EQ(e["n_labelled"], 3);
  EXPECT_EQ(e["n_total"], 20);
}

// Issue 55: several reviewers label the same rows, a line each with its labeller; calibrate says
// how often they agree (raw, Cohen's kappa, Krippendorff's alpha), takes their majority (or one
// reviewer) as the human value, and lists the rows they disagree on. Estimate reads the mean.
TEST(ReviewTest, SeveralReviewersAgreementMajorityAndDisagreements) {
  TempDir dir;
  std::string results = Results(dir);
  // demo-01..demo-04: ana and ben agree on three, differ on demo-04; demo-05 ana alone.
  std::string labels = dir.Write("labels.jsonl",
                                 "{\"id\":\"demo-01\",\"faithfulness\":1,\"labeller\":\"ana\"}\n"
                                 "{\"id\":\"demo-01\",\"faithfulness\":1,\"labeller\":\"ben\"}\n"
                                 "{\"id\":\"demo-02\",\"faithfulness\":0,\"labeller\":\"ana\"}\n"
                                 "{\"id\":\"demo-02\",\"faithfulness\":0,\"labeller\":\"ben\"}\n"
                                 "{\"id\":\"demo-03\",\"faithfulness\":1,\"labeller\":\"ana\"}\n"
                                 "{\"id\":\"demo-03\",\"faithfulness\":1,\"labeller\":\"ben\"}\n"
                                 "{\"id\":\"demo-04\",\"faithfulness\":1,\"labeller\":\"ana\"}\n"
                                 "{\"id\":\"demo-04\",\"faithfulness\":0,\"labeller\":\"ben\"}\n"
                                 "{\"id\":\"demo-05\",\"faithfulness\":0,\"labeller\":\"ana\"}\n");
  auto calibrate = RunTala("calibrate " + results + " --labels " + labels +
                           " --metric faithfulness --json 2>&1");
  ASSERT_EQ(calibrate.exit_code, 0) << calibrate.out;
  json c = json::parse(calibrate.out);
  EXPECT_EQ(c["reviewers"], json::array({"ana", "ben"}));
  EXPECT_EQ(c["reviewed_by_several"], 4);
  EXPECT_DOUBLE_EQ(c["reviewer_agreement"].get<double>(), 0.75);
  EXPECT_NEAR(c["reviewer_kappa"].get<double>(), 0.5, 1e-4);  // po 0.75, pe 0.5
  EXPECT_NEAR(c["reviewer_alpha"].get<double>(), 0.5333, 1e-4);
  EXPECT_EQ(c["disagreements"], json::array({"demo-04"}));
  EXPECT_EQ(c["reviewer_ties"], 1);  // demo-04 has no majority: left out
  EXPECT_EQ(c["n"].get<int>() + c["undefined_judge"].get<int>(), 4);
  // Ben's labels alone: demo-01..04 (demo-05 is ana's only).
  auto ben = RunTala("calibrate " + results + " --labels " + labels +
                     " --metric faithfulness --reviewer ben 2>&1");
  ASSERT_EQ(ben.exit_code, 0) << ben.out;
  EXPECT_NE(ben.out.find("the human value above is ben's"), std::string::npos) << ben.out;
  EXPECT_NE(ben.out.find("reviewers disagree on 1 rows, for a second look: demo-04"),
            std::string::npos)
      << ben.out;
  // One reviewer twice on a row, or lines without a labeller, stay an error naming the lines.
  std::string twice = dir.Write("twice.jsonl",
                                "{\"id\":\"demo-01\",\"faithfulness\":1,\"labeller\":\"ana\"}\n"
                                "{\"id\":\"demo-01\",\"faithfulness\":0,\"labeller\":\"ana\"}\n");
  auto refused =
      RunTala("calibrate " + results + " --labels " + twice + " --metric faithfulness 2>&1");
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_NE(refused.out.find("twice.jsonl:2"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("first on line 1"), std::string::npos) << refused.out;
  // The estimate reads each row's mean label (demo-04: 0.5).
  auto estimate =
      RunTala("estimate " + results + " --labels " + labels + " --metric faithfulness --json");
  ASSERT_EQ(estimate.exit_code, 0) << estimate.out;
  EXPECT_EQ(json::parse(estimate.out)["n_labelled"], 5);
}

// --assign: a page per reviewer, the picked rows split between them with --overlap shared.
TEST(ReviewTest, AssignWritesAPagePerReviewerWithASharedShare) {
  TempDir dir;
  std::string results = Results(dir);
  auto r = RunTala("review " + results + " --n 10 --pick random --seed 4 --assign ana,ben,cy " +
                   "--overlap 0.4 --out " + dir.path() + "/queue.html 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::map<std::string, std::set<std::string>> ids;
  for (const char* who : {"ana", "ben", "cy"}) {
    std::ifstream in(dir.path() + "/queue-" + who + ".html");
    std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(html.find(std::string("\"labeller\":\"") + who + "\""), std::string::npos) << who;
    std::regex id("\"id\":\"(demo-[0-9]+)\"");
    for (auto it = std::sregex_iterator(html.begin(), html.end(), id); it != std::sregex_iterator();
         ++it) {
      ids[who].insert((*it)[1].str());
    }
  }
  // 10 rows: 4 for everyone, the other 6 dealt two each.
  std::set<std::string> all, everyone = ids["ana"];
  for (const auto& [who, mine] : ids) {
    EXPECT_EQ(mine.size(), 6u) << who;
    all.insert(mine.begin(), mine.end());
    std::set<std::string> kept;
    for (const std::string& i : everyone) {
      if (mine.count(i)) kept.insert(i);
    }
    everyone = kept;
  }
  EXPECT_EQ(all.size(), 10u);
  EXPECT_EQ(everyone.size(), 4u);
  EXPECT_NE(r.out.find("4 of them for every reviewer"), std::string::npos) << r.out;
  // One reviewer, a repeated name or a path is refused.
  for (const char* bad : {"ana", "ana,ana", "ana,../x"}) {
    auto refused =
        RunTala("review " + results + " --assign " + bad + " --out " + dir.path() + "/x.html 2>&1");
    EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.out;
  }
}

TEST(ReviewTest, EstimateRefusesRowsPickedByScoreAndSaysWhenItCannotKnow) {
  TempDir dir;
  std::string results = Results(dir);
  std::string rows =
      "{\"id\":\"demo-01\",\"faithfulness\":1}\n{\"id\":\"demo-05\",\"faithfulness\":0}\n"
      "{\"id\":\"demo-09\",\"faithfulness\":true}\n";
  std::string low =
      dir.Write("low.jsonl", "{\"tala_labels\":{\"pick\":\"low\",\"seed\":1}}\n" + rows);
  auto refused =
      RunTala("estimate " + results + " --labels " + low + " --metric faithfulness 2>&1");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.out.find("picked by score (--pick low)"), std::string::npos) << refused.out;
  auto allowed = RunTala("estimate " + results + " --labels " + low +
                         " --metric faithfulness --allow-biased-labels 2>&1");
  EXPECT_EQ(allowed.exit_code, 0);
  EXPECT_NE(allowed.out.find("WARNING"), std::string::npos) << allowed.out;
  std::string plain = dir.Write("plain.jsonl", rows);
  auto unknown = RunTala("estimate " + results + " --labels " + plain + " --metric faithfulness");
  EXPECT_EQ(unknown.exit_code, 0);
  EXPECT_NE(unknown.out.find("taken as a uniform random subset"), std::string::npos);
  std::string bad = dir.Write("bad.jsonl", "{\"id\":\"demo-01\",\"faithfulness\":\"yes\"}\n");
  auto b = RunTala("estimate " + results + " --labels " + bad + " --metric faithfulness 2>&1");
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.out.find(bad + ":1: field \"faithfulness\""), std::string::npos) << b.out;
}

// --pick active (issue 55 item 4): each picked row carries its chance of being picked into the
// page (and so into its label); tala estimate weights the labels by it, and --target-width says
// how many labels a width needs.
TEST(ReviewTest, ActivePickCarriesEachRowsChanceAndTheEstimateWeightsByIt) {
  TempDir dir;
  std::string results = Results(dir);
  const std::string page = dir.path() + "/review.html";
  auto r = RunTala("review " + results + " --pick active --n 8 --seed 3 --target-width 0.4 -o " +
                   page + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("8 of 20 rows with faithfulness picked (active, seed 3)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("labels picked at random"), std::string::npos) << r.out;
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::regex row("\"pick_probability\":([0-9.eE+-]+),\"id\":\"([^\"]+)\"");
  std::string labels =
      "{\"tala_labels\":{\"pick\":\"active\",\"seed\":3,\"metric\":"
      "\"faithfulness\",\"n\":8}}\n";
  int rows = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), row); it != std::sregex_iterator();
       ++it) {
    const double chance = std::stod((*it)[1]);
    EXPECT_GT(chance, 0);
    EXPECT_LE(chance, 1);
    labels += "{\"id\":\"" + (*it)[2].str() + "\",\"faithfulness\":" + (rows % 3 ? "1" : "0") +
              ",\"pick_probability\":" + (*it)[1].str() + "}\n";
    ++rows;
  }
  EXPECT_EQ(rows, 8);
  auto e = RunTala("estimate " + results + " --labels " + dir.Write("l.jsonl", labels) +
                   " --metric faithfulness 2>&1");
  EXPECT_EQ(e.exit_code, 0) << e.out;
  // Eight labels are fewer than two for each stratum of the judge's values: weighted.
  EXPECT_NE(e.out.find("active pick: each label weighted"), std::string::npos) << e.out;
  // Sixteen are enough: the pick is stratified, and so is the estimate's reading.
  auto more = RunTala("review " + results + " --pick active --n 16 --seed 3 -o " + page + " 2>&1");
  ASSERT_EQ(more.exit_code, 0) << more.out;
  std::ifstream again(page);
  const std::string html16((std::istreambuf_iterator<char>(again)),
                           std::istreambuf_iterator<char>());
  std::string labels16 =
      "{\"tala_labels\":{\"pick\":\"active\",\"seed\":3,\"metric\":\"faithfulness\",\"n\":16}}\n";
  rows = 0;
  for (auto it = std::sregex_iterator(html16.begin(), html16.end(), row);
       it != std::sregex_iterator(); ++it) {
    labels16 += "{\"id\":\"" + (*it)[2].str() + "\",\"faithfulness\":" + (rows % 3 ? "1" : "0") +
                ",\"pick_probability\":" + (*it)[1].str() + "}\n";
    ++rows;
  }
  EXPECT_EQ(rows, 16);
  e = RunTala("estimate " + results + " --labels " + dir.Write("l16.jsonl", labels16) +
              " --metric faithfulness 2>&1");
  EXPECT_EQ(e.exit_code, 0) << e.out;
  EXPECT_NE(e.out.find("read stratum by stratum"), std::string::npos) << e.out;
  // A chance outside (0, 1] is a typo, named with its line.
  const std::string bad =
      dir.Write("bad.jsonl", "{\"id\":\"demo-01\",\"faithfulness\":1,\"pick_probability\":2}\n");
  e = RunTala("estimate " + results + " --labels " + bad + " --metric faithfulness 2>&1");
  EXPECT_EQ(e.exit_code, 2) << e.out;
  EXPECT_NE(e.out.find(bad + ":1: field \"pick_probability\""), std::string::npos) << e.out;
}

TEST(ReviewTest, JudgeDriftNamesTheRowsWhoseVerdictsFlipped) {
  TempDir dir;
  std::string a = Results(dir);
  std::ifstream in(a);
  std::string b_text;
  int flipped = 0;
  std::vector<std::string> expected;
  for (std::string line; std::getline(in, line);) {
    json row = json::parse(line);
    if (row.contains("scores") && flipped < 5 && row["scores"]["faithfulness"].is_number() &&
        row["scores"]["faithfulness"].get<double>() >= 0.5) {
      row["scores"]["faithfulness"] = 0.1;
      expected.push_back(row["id"]);
      ++flipped;
    }
    b_text += row.dump() + "\n";
  }
  std::string b = dir.Write("b.jsonl", b_text);
  auto drift = RunTala("calibrate --judge-a " + a + " --judge-b " + b + " --metric faithfulness");
  ASSERT_EQ(drift.exit_code, 0) << drift.out;
  EXPECT_NE(drift.out.find("5 rows flipped:"), std::string::npos) << drift.out;
  for (const std::string& id : expected) EXPECT_NE(drift.out.find(id + " ("), std::string::npos);
}

TEST(ReviewTest, ServeGivesThePageAndWritesEveryCheckedSaveToTheLabelsFile) {
  TempDir dir;
  std::string results = Results(dir), labels = dir.path() + "/labels.jsonl";
  std::string script =
      std::string(TALA_BINARY_DIR) + "/tala review " + results + " --n 4 --serve --port 0 " +
      "--labels-out " + labels + " 2> " + dir.path() + "/log & pid=$!\n" +
      "for i in $(seq 200); do grep --no-progress 'label at' " + dir.path() +
      "/log && break; sleep 0.05; done\n" + "url=$(sed -n 's/.*label at \\(http[^ ]*\\).*/\\1/p' " +
      dir.path() + "/log)\n" + "/usr/bin/python3 - \"$url\" > " + dir.path() +
      "/out <<'PY'\n"
      "import sys, urllib.request, urllib.error\n"
      "url = sys.argv[1]\n"
      "page = urllib.request.urlopen(url).read().decode()\n"
      "print('page', 'tala review' in page and 'fetch(\"/labels\"' in page)\n"
      "at = page.index('id=\"token\">\"') + 12\n"
      "hdr = {'Content-Type': 'application/x-ndjson', 'X-Tala-Token': page[at:at + 32]}\n"
      "good = "
      "b'{\"tala_labels\":{\"pick\":\"stratified\",\"seed\":1}}\\n{\"id\":\"demo-"
      "01\",\"faithfulness\":1}\\n'\n"
      "r = urllib.request.urlopen(urllib.request.Request(url + 'labels', "
      "data=good, headers=hdr, method='POST'))\n"
      "print('good', r.status, r.read().decode())\n"
      "try:\n"
      "    urllib.request.urlopen(urllib.request.Request(url + 'labels', "
      "data=b'{\"faithfulness\":1}\\n', headers=hdr, method='POST'))\n"
      "except urllib.error.HTTPError as e:\n"
      "    print('bad', e.code, e.read().decode())\n"
      "PY\n"
      "kill $pid\n";
  ASSERT_EQ(std::system(("bash " + dir.Write("serve.sh", script)).c_str()), 0);
  std::string out = dir.Read("out");
  EXPECT_NE(out.find("page True"), std::string::npos) << out << dir.Read("log");
  EXPECT_NE(out.find("good 200 1 rows saved"), std::string::npos) << out;
  EXPECT_NE(out.find("bad 400 missing: the labelled row's id (field id)"), std::string::npos)
      << out;
  EXPECT_NE(dir.Read("labels.jsonl").find("\"demo-01\""), std::string::npos);
}

TEST(ReviewTest, EvalWithLabelsPrintsTheCorrectedMean) {
  TempDir dir;
  std::string labels = dir.Write("l.jsonl",
                                 "{\"id\":\"demo-01\",\"faithfulness\":1}\n"
                                 "{\"id\":\"demo-05\",\"faithfulness\":0}\n"
                                 "{\"id\":\"demo-09\",\"faithfulness\":1}\n");
  auto eval = RunTala("eval " + kDemo + " --metrics faithfulness --no-progress -o " + dir.path() +
                      "/r.jsonl --labels " + labels);
  ASSERT_EQ(eval.exit_code, 0) << eval.out;
  EXPECT_NE(eval.out.find("corrected by human labels (prediction-powered"), std::string::npos)
      << eval.out;
  EXPECT_NE(eval.out.find("on 3 of 20 rows"), std::string::npos) << eval.out;
}

}  // namespace
}  // namespace tala::testing
