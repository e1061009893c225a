// The HTML report in a real browser: headless Chromium (Debian's `chromium`, installed by
// `make test-deps`) opens a 10,000-row report with #selftest, which sorts the table, opens a row's
// drill-down and filters, and writes the outcome and any script error into the page. A
// screenshot is kept in build/test-artifacts/ for people to look at.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/headless_browser.h"
#include "cli/run_tala.h"
#include "support/temp_dir.h"

namespace tala::testing {
namespace {

constexpr const char* kFlags = kChromiumFlags;

std::string Dataset(int rows) {
  std::string out;
  for (int i = 0; i < rows; ++i) {
    std::string n = std::to_string(i);
    out += "{\"id\":\"r" + n + "\",\"user_input\":\"What is the capital of region " + n +
           "?\",\"response\":\"The capital of region " + n + " is Town" + std::to_string(i % 7) +
           ". It has a <script> museum.\",\"reference\":\"The capital of region " + n + " is Town" +
           std::to_string(i % 5) + ".\",\"retrieved_contexts\":[\"Region " + n +
           " has its capital in Town" + std::to_string(i % 5) +
           ".\",\"</script><b>not markup</b>\"]}\n";
  }
  return out;
}

TEST(HtmlReportTest, TenThousandRowsSortFilterAndDrillDownInHeadlessChromium) {
  if (!std::filesystem::exists(kChromium)) {
    GTEST_SKIP() << "chromium is not installed (make test-deps installs it)";
  }
  TempDir dir;
  std::string data = dir.Write("d.jsonl", Dataset(10000));
  std::string results = dir.path() + "/r.jsonl", html = dir.path() + "/report.html";
  CommandOutput eval =
      RunTala("eval " + data + " --metrics faithfulness,context_precision,context_recall -q -o " +
              results + " --html " + html + " 2>&1");
  ASSERT_EQ(eval.exit_code, 0) << eval.out;
  ASSERT_TRUE(std::filesystem::exists(html));
  std::ifstream in(html);
  std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Self-contained: nothing loaded from elsewhere (the SVG namespace URI is only a name).
  for (const char* fetch :
       {"src=\"http", "href=\"http", "url(http", "fetch(", "XMLHttpRequest", "<link", "import("}) {
    EXPECT_EQ(page.find(fetch), std::string::npos) << "the report must not fetch: " << fetch;
  }
  EXPECT_EQ(page.find("</script><b>"), std::string::npos) << "row text must not end the script";

  std::string dom = DumpDom("file://" + html + "#selftest");
  size_t at = dom.find("SELFTEST sorted");
  ASSERT_NE(at, std::string::npos) << "the self-test did not run; page tail: "
                                   << dom.substr(dom.size() > 400 ? dom.size() - 400 : 0);
  std::string outcome = dom.substr(at, dom.find('<', at) - at);
  EXPECT_EQ(outcome, "SELFTEST sorted=1 drilldown=1 filtered=1 errors=0");
  EXPECT_NE(dom.find("10000 rows"), std::string::npos) << "the table counts every row";

  std::string artifacts = std::string(TALA_BINARY_DIR) + "/test-artifacts";
  std::filesystem::create_directories(artifacts);
  std::string shot = std::string(kChromium) + kFlags +
                     " --window-size=1400,1100 --screenshot=" + artifacts +
                     "/html-report.png 'file://" + html + "#selftest' >/dev/null 2>&1";
  EXPECT_EQ(std::system(shot.c_str()), 0);
  EXPECT_TRUE(std::filesystem::exists(artifacts + "/html-report.png"));
}

// The demo's report at 1400x900, before any scrolling: the pipeline picture is the first
// section, and the principal failure with its worst rows is on the first screen (issue 33).
TEST(HtmlReportTest, ThePrincipalFailureIsVisibleWithoutScrollingAt1400x900) {
  if (!std::filesystem::exists(kChromium)) {
    GTEST_SKIP() << "chromium is not installed (make test-deps installs it)";
  }
  TempDir dir;
  std::string results = dir.path() + "/r.jsonl", html = dir.path() + "/report.html";
  CommandOutput eval =
      RunTala("eval " + std::string(TALA_SOURCE_DIR) + "/examples/data/interactions.jsonl -q -o " +
              results + " --html " + html + " 2>&1");
  ASSERT_EQ(eval.exit_code, 0) << eval.out;
  std::string dom = DumpDom("file://" + html + "#foldtest", " --window-size=1400,900");
  size_t at = dom.find("FOLDTEST first");
  ASSERT_NE(at, std::string::npos) << "the fold test did not run";
  EXPECT_EQ(dom.substr(at, dom.find('<', at) - at),
            "FOLDTEST first=pipeline pipeline=1 diagnosisverdict=1 diagnosisworst=1 errors=0");
  EXPECT_NE(dom.find("the <b>retriever</b> is the principal failure: <b>ranking noise</b> in 6 "
                     "of 22 rows"),
            std::string::npos);
  std::string artifacts = std::string(TALA_BINARY_DIR) + "/test-artifacts";
  std::filesystem::create_directories(artifacts);
  std::string shot = std::string(kChromium) + kFlags +
                     " --window-size=1400,900 --screenshot=" + artifacts +
                     "/html-report-first-screen.png 'file://" + html + "' >/dev/null 2>&1";
  EXPECT_EQ(std::system(shot.c_str()), 0);
}

TEST(HtmlReportTest, TheDrillDownShowsTheJudgedCriteria) {
  if (!std::filesystem::exists(kChromium)) {
    GTEST_SKIP() << "chromium is not installed (make test-deps installs it)";
  }
  TempDir dir;
  std::string rows;
  for (int i = 0; i < 3; ++i) {
    rows +=
        "{\"id\":\"c" + std::to_string(i) +
        "\",\"user_input\":[{\"type\":\"human\",\"content\":\"Hours?\"},{\"type\":\"ai\","
        "\"content\":\"9 to 5.\"}],\"reference_topics\":[\"hours\"],\"verdicts\":{\"answers\":{"
        "\"aspect_critic(name=polite)\":{\"values\":[1,0,1],\"reason\":\"mostly <b>polite</b>\"},"
        "\"topic_adherence\":{\"items\":[{\"text\":\"opening hours\",\"answered\":true,"
        "\"in_reference\":true}]}}}}\n";
  }
  std::string data = dir.Write("d.jsonl", rows);
  std::string html = dir.path() + "/report.html";
  CommandOutput eval =
      RunTala("eval " + data +
              " --judge replay --metrics 'aspect_critic:name=polite,definition=x,strictness=3,"
              "topic_adherence' -q -o " +
              dir.path() + "/r.jsonl --html " + html + " 2>&1");
  ASSERT_EQ(eval.exit_code, 0) << eval.out;
  std::string dom = DumpDom("file://" + html + "#selftest");
  size_t at = dom.find("SELFTEST sorted");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(dom.substr(at, dom.find('<', at) - at),
            "SELFTEST sorted=1 drilldown=1 filtered=1 errors=0");
  EXPECT_NE(dom.find("judged criteria"), std::string::npos);
  EXPECT_NE(dom.find("aspect_critic(name=polite)"), std::string::npos);
  EXPECT_NE(dom.find("in reference"), std::string::npos) << "a topic's flags are shown";
  EXPECT_EQ(dom.find("<b>polite</b>"), std::string::npos) << "a reason is text, not markup";
}

// A conversation is drawn as a chat (issue 54): each turn's question and answer, the turn's
// diagnosis on its answer and its scores with their reasons beside it, the first failing turn
// marked.
TEST(HtmlReportTest, AConversationIsDrawnTurnByTurn) {
  if (!std::filesystem::exists(kChromium)) {
    GTEST_SKIP() << "chromium is not installed (make test-deps installs it)";
  }
  TempDir dir;
  std::string html = dir.path() + "/report.html";
  CommandOutput eval =
      RunTala("eval " + std::string(TALA_SOURCE_DIR) + "/examples/data/conversations.jsonl -q -o " +
              dir.path() + "/r.jsonl --html " + html + " 2>&1");
  ASSERT_EQ(eval.exit_code, 0) << eval.out;
  std::string dom = DumpDom("file://" + html + "#selftest");
  size_t at = dom.find("SELFTEST sorted");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(dom.substr(at, dom.find('<', at) - at),
            "SELFTEST sorted=1 drilldown=1 filtered=1 conversation=1 errors=0");
  EXPECT_NE(dom.find("first failing turn"), std::string::npos) << "the first chat has a fault";
}

}  // namespace
}  // namespace tala::testing
