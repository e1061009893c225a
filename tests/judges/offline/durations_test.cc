// Spans of time in other units (judges/offline/durations.h): "a month" is stated by "30 days",
// "two weeks" by "14 days"; the same unit with another number stays a changed value; claim
// support reads them so.

#include "judges/offline/durations.h"

#include <gtest/gtest.h>

#include "core/text/stemmer.h"
#include "judges/offline/claim_support.h"

namespace tala::judges::offline {
namespace {

class DurationsTest : public ::testing::Test {
 protected:
  std::vector<Duration> Read(const std::string& text) {
    return Durations(TextProfile(text, stemmer));
  }
  double Support(const std::string& claim, const std::string& evidence) {
    TextProfile c(claim, stemmer), q("", stemmer), e(evidence, stemmer);
    return support.Check(c, q, e, GivenWords::kMustMatch, "context").score;
  }
  text::Stemmer stemmer;
  ClaimSupport support;
};

TEST_F(DurationsTest, SpansAreReadWithTheirNumberOrArticle) {
  auto d = Read("Keep it for 30 days, or a month, or two weeks, or 24 hours.");
  std::string read;
  for (const Duration& x : d) read += std::to_string(x.quantity) + " " + x.unit + "; ";
  ASSERT_EQ(d.size(), 4u) << read;
  EXPECT_EQ(d[0].quantity, 30);
  EXPECT_STREQ(d[0].unit, "day");
  EXPECT_EQ(d[1].quantity, 1);
  EXPECT_STREQ(d[1].unit, "month");
  EXPECT_EQ(d[1].quantity_token, -1);
  EXPECT_EQ(d[2].quantity, 2);
  EXPECT_STREQ(d[2].unit, "week");
  EXPECT_STREQ(d[3].unit, "hour");
  EXPECT_EQ(d[3].quantity, 24);
  EXPECT_TRUE(Read("a few days later").empty());
}

TEST_F(DurationsTest, OnlyTheSameSpanInAnotherUnitIsTheSame) {
  auto one = [&](const std::string& text) { return Read(text).at(0); };
  EXPECT_TRUE(SameSpan(one("a month"), one("30 days")));
  EXPECT_TRUE(SameSpan(one("31 days"), one("a month")));
  EXPECT_TRUE(SameSpan(one("two weeks"), one("14 days")));
  EXPECT_TRUE(SameSpan(one("a year"), one("12 months")));
  EXPECT_TRUE(SameSpan(one("an hour"), one("60 minutes")));
  EXPECT_FALSE(SameSpan(one("a week"), one("30 days")));
  EXPECT_FALSE(SameSpan(one("three weeks"), one("14 days")));
  EXPECT_FALSE(SameSpan(one("31 days"), one("30 days")));  // a changed value, not a paraphrase
  EXPECT_FALSE(SameSpan(one("2 hours"), one("60 minutes")));
}

TEST_F(DurationsTest, ClaimSupportReadsASpanInAnotherUnitAsStated) {
  const std::string context = "The warranty lasts 14 days from delivery.";
  EXPECT_EQ(Support("The warranty lasts two weeks.", context), 1.0);
  EXPECT_EQ(Support("The warranty lasts 2 weeks.", context), 1.0);
  // Without the reading, the bare 2 is a number the context lacks.
  EXPECT_LT(Support("The warranty lasts 3 weeks.", context), 0.3);
  EXPECT_LT(Support("The warranty lasts 15 days.", context), 0.3);
  EXPECT_LT(Support("The warranty lasts a week.", context), 1.0);
}

}  // namespace
}  // namespace tala::judges::offline
