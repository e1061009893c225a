// GapReader: what the documents lack among production questions, read against documents or
// against the passages retrieved for each question (tala serve's /v1/gaps).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "support/temp_dir.h"
#include "tala/testset.h"

namespace tala {
namespace {

using Gaps = std::vector<std::pair<std::string, int64_t>>;

Gaps ListOf(const GapReport& r) {
  Gaps out;
  for (const TestsetGap& g : r.gaps) out.emplace_back(g.question, g.questions);
  return out;
}

const char* kDelivery = "Standard delivery takes 3 to 5 business days.";

TEST(GapReaderTest, AnIntentNoRetrievedPassageAnswersIsAGapAndAGreetingNever) {
  auto reader = GapReader::Open("");
  ASSERT_TRUE(reader) << reader.error().ToString();
  EXPECT_FALSE(reader->with_documents());
  std::vector<AskedQuestion> asked = {
      {"How long does standard delivery take?", {kDelivery}},
      {"Can I return a gift without a receipt?", {kDelivery}},
      {"can I return a gift without a receipt", {kDelivery}},
      {"Can I return a gift without a receipt?", {kDelivery}},
      {"Do you deliver to Iceland?", {}},  // nothing retrieved: nothing answers
      {"hi", {}},                          // no word to look for: not a gap
      {"   ", {kDelivery}},                // blank: left out
  };
  auto report = reader->Read(asked);
  ASSERT_TRUE(report) << report.error().ToString();
  EXPECT_EQ(report->against, "retrieved passages");
  EXPECT_EQ(report->questions, 6);
  // The most asked first, each by its most asked wording (on a tie, the first asked).
  EXPECT_EQ(ListOf(*report), (Gaps{{"Can I return a gift without a receipt?", 3},
                                   {"Do you deliver to Iceland?", 1}}));
  EXPECT_EQ(report->gap_questions, 4);
  const std::string json = GapReportJson(*report);
  EXPECT_NE(json.find("\"against\":\"retrieved passages\",\"questions\":6,"), std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"question\":\"Do you deliver to Iceland?\",\"questions\":1,"),
            std::string::npos)
      << json;
}

TEST(GapReaderTest, AgainstDocumentsWhatTheRetrieverMissedIsNoGap) {
  testing::TempDir dir;
  std::filesystem::create_directory(dir.path() + "/docs");
  dir.Write("docs/delivery.md", std::string("# Delivery\n\n") + kDelivery +
                                    " We deliver to every country in Europe, Iceland included.\n");
  auto reader = GapReader::Open(dir.path() + "/docs");
  ASSERT_TRUE(reader) << reader.error().ToString();
  EXPECT_TRUE(reader->with_documents());
  // The retriever found nothing for Iceland, but the documents answer it.
  auto report =
      reader->Read({{"Do you deliver to Iceland?", {}}, {"Can I pay in bitcoin?", {kDelivery}}});
  ASSERT_TRUE(report) << report.error().ToString();
  EXPECT_EQ(report->against, "documents");
  EXPECT_EQ(ListOf(*report), (Gaps{{"Can I pay in bitcoin?", 1}}));
  // Documents that are not there, or hold no text, are refused naming them.
  auto missing = GapReader::Open(dir.path() + "/nowhere");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().ToString().find("nowhere"), std::string::npos);
  std::filesystem::create_directory(dir.path() + "/empty");
  dir.Write("empty/blank.md", "\n\n");
  auto empty = GapReader::Open(dir.path() + "/empty");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().ToString().find("empty"), std::string::npos) << empty.error().ToString();
}

}  // namespace
}  // namespace tala
