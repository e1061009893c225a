#include <gtest/gtest.h>

#include "metrics/factual_correctness.h"
#include "metrics/metric_base.h"
#include "metrics/registry.h"

namespace tala::metrics {
namespace {

TEST(AveragePrecisionTest, PerfectRankingIsExactlyOne) {
  EXPECT_EQ(AveragePrecision({true, true, true}), 1.0);
  EXPECT_EQ(AveragePrecision({true}), 1.0);
}

TEST(AveragePrecisionTest, EmptyAndAllIrrelevantAreZero) {
  EXPECT_EQ(AveragePrecision({}), 0.0);
  EXPECT_EQ(AveragePrecision({false, false}), 0.0);
}

TEST(AveragePrecisionTest, RewardsEarlyRelevantChunks) {
  EXPECT_NEAR(AveragePrecision({true, true, false, true, false}), 0.916667, 1e-6);
  EXPECT_NEAR(AveragePrecision({false, false, true, true, true}), 0.477778, 1e-6);
}

TEST(FBetaTest, MatchesHandComputedValues) {
  EXPECT_NEAR(FBeta(2, 1, 2, 1.0), 0.571429, 1e-6);
  EXPECT_EQ(FBeta(0, 3, 2, 1.0), 0.0);
  EXPECT_EQ(FBeta(3, 0, 0, 1.0), 1.0);
}

TEST(MetricOptionsTest, UnknownOptionIsRejectedWithTheMetricName) {
  auto specs = ParseMetricSpecs("faithfulness:strictness=2");
  ASSERT_TRUE(specs.has_value());
  auto metrics = CreateMetrics(*specs);
  ASSERT_FALSE(metrics.has_value());
  EXPECT_NE(metrics.error().message().find("faithfulness has no option \"strictness\""),
            std::string::npos);
}

TEST(MetricOptionsTest, BadModeIsRejected) {
  auto metrics = CreateMetrics(*ParseMetricSpecs("factual_correctness:mode=average"));
  EXPECT_EQ(metrics.error().code(), ErrorCode::kInvalidArgument);
}

TEST(MetricOptionsTest, OptionsBecomePartOfTheKey) {
  auto metrics = CreateMetrics(*ParseMetricSpecs("factual_correctness:mode=precision,beta=2"));
  ASSERT_TRUE(metrics.has_value());
  EXPECT_EQ((*metrics)[0]->key(), "factual_correctness(beta=2,mode=precision)");
}

TEST(MetricOptionsTest, PrecisionModeNeedsNoReferenceClaims) {
  auto precision = CreateMetrics(*ParseMetricSpecs("factual_correctness:mode=precision"));
  EXPECT_FALSE(Contains((*precision)[0]->tasks(), JudgeTask::kFindReferenceClaimsInResponse));
  auto f1 = CreateMetrics(*ParseMetricSpecs("factual_correctness"));
  EXPECT_TRUE(Contains((*f1)[0]->tasks(), JudgeTask::kFindReferenceClaimsInResponse));
}

}  // namespace
}  // namespace tala::metrics
