#include "analysis/judge_agreement.h"

#include <gtest/gtest.h>

namespace tala::analysis {
namespace {

std::vector<LabelledScore> FromLists(const std::vector<int>& human,
                                     const std::vector<double>& judge) {
  std::vector<LabelledScore> rows;
  for (size_t i = 0; i < human.size(); ++i) rows.push_back({human[i] == 1, judge[i], ""});
  return rows;
}

TEST(JudgeAgreementTest, IssueCheckRawAgreementAndKappa) {
  auto rows = FromLists({1, 1, 0, 1, 0, 1, 1, 0, 1, 1}, {1, 1, 1, 1, 0, 1, 1, 1, 1, 1});
  Confusion c = Confuse(rows, 0.5);
  EXPECT_NEAR(RawAgreement(c), 0.80, 1e-12);
  EXPECT_NEAR(*CohensKappa(c), 0.41, 0.005);
  EXPECT_EQ(c.true_positive, 7);
  EXPECT_EQ(c.false_positive, 2);
  EXPECT_EQ(c.true_negative, 1);
  EXPECT_EQ(c.false_negative, 0);
}

// Krippendorff's own worked example (four observers, twelve units, nominal, some missing):
// alpha 0.743.
TEST(JudgeAgreementTest, KrippendorffAlphaOfThePublishedExample) {
  const std::vector<std::vector<int>> units = {
      {1, 1, 1},    {2, 2, 3, 2}, {3, 3, 3, 3}, {3, 3, 3, 3}, {2, 2, 2, 2}, {1, 2, 3, 4},
      {4, 4, 4, 4}, {1, 1, 2, 1}, {2, 2, 2, 2}, {5, 5, 5},    {1, 1},       {3}};
  ASSERT_TRUE(KrippendorffAlpha(units).has_value());
  EXPECT_NEAR(*KrippendorffAlpha(units), 0.743, 0.0005);
  EXPECT_NEAR(*KrippendorffAlpha({{1, 1}, {0, 0}, {1, 1}}), 1.0, 1e-12);
  EXPECT_FALSE(KrippendorffAlpha({{1, 1}, {1, 1}}).has_value());  // one label throughout
  EXPECT_FALSE(KrippendorffAlpha({{1}, {0}}).has_value());        // no unit of two
}

TEST(JudgeAgreementTest, KappaUndefinedWhenBothRatersUseOneLabel) {
  auto rows = FromLists({1, 1}, {1, 1});
  EXPECT_FALSE(CohensKappa(Confuse(rows, 0.5)).has_value());
}

TEST(JudgeAgreementTest, AurocCountsTiesHalf) {
  EXPECT_NEAR(*Auroc(FromLists({1, 0}, {0.9, 0.1})), 1.0, 1e-12);
  EXPECT_NEAR(*Auroc(FromLists({1, 0}, {0.5, 0.5})), 0.5, 1e-12);
  EXPECT_NEAR(*Auroc(FromLists({1, 1, 0, 0}, {0.8, 0.4, 0.6, 0.2})), 0.75, 1e-12);
  EXPECT_FALSE(Auroc(FromLists({1, 1}, {0.2, 0.3})).has_value());
}

TEST(JudgeAgreementTest, BestThresholdSeparatesPerfectly) {
  auto best = BestThresholdAccuracy(FromLists({1, 1, 0, 0}, {0.9, 0.7, 0.3, 0.1}));
  EXPECT_EQ(best.accuracy, 1.0);
  EXPECT_EQ(best.threshold, 0.7);
}

TEST(JudgeAgreementTest, PairwiseAccuracyWithinGroups) {
  std::vector<LabelledScore> rows = {{true, 0.9, "a"}, {false, 0.2, "a"}, {false, 0.9, "a"},
                                     {true, 0.5, "b"}, {false, 0.6, "b"}, {true, 0.1, "c"}};
  auto r = PairwiseAccuracy(rows);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->pairs, 3);
  EXPECT_EQ(r->groups, 2);
  EXPECT_NEAR(r->accuracy, (1 + 0.5 + 0) / 3.0, 1e-12);
}

}  // namespace
}  // namespace tala::analysis
