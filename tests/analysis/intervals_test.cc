#include "analysis/intervals.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/diagnosis.h"

namespace tala::analysis {
namespace {

TEST(IntervalsTest, WilsonForBinaryValues) {
  auto [lo, hi] = WilsonInterval(8, 10, 0.95);
  EXPECT_NEAR(lo, 0.4902, 1e-4);
  EXPECT_NEAR(hi, 0.9433, 1e-4);
  auto st = Summarise({1, 1, 0, 1, 1, 1, 1, 0, 1, 1});
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->method, MetricStatistics::Method::kWilson);
  EXPECT_NEAR(st->ci_low, 0.4902, 1e-4);
  EXPECT_DOUBLE_EQ(st->mean, 0.8);
}

TEST(IntervalsTest, SeededBootstrapIsReproducibleAndBracketsTheMean) {
  std::vector<double> v = {0.1, 0.5, 0.7, 0.9, 0.3, 0.65, 0.8, 0.2};
  auto a = Summarise(v), b = Summarise(v);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->method, MetricStatistics::Method::kBootstrap);
  EXPECT_EQ(a->ci_low, b->ci_low);
  EXPECT_EQ(a->ci_high, b->ci_high);
  EXPECT_LT(a->ci_low, a->mean);
  EXPECT_GT(a->ci_high, a->mean);
  EXPECT_NEAR(a->median, 0.575, 1e-12);
  EXPECT_NEAR(a->stddev, 0.292694, 1e-6);
}

TEST(IntervalsTest, ConstantValuesHaveAPointInterval) {
  auto st = Summarise({0.4, 0.4, 0.4});
  EXPECT_NEAR(st->ci_low, 0.4, 1e-12);
  EXPECT_NEAR(st->ci_high, 0.4, 1e-12);
  EXPECT_NEAR(st->stddev, 0.0, 1e-12);
  EXPECT_FALSE(Summarise({}).has_value());
}

TEST(IntervalsTest, LargeRunsUseTheNormalApproximation) {
  std::vector<double> v;
  for (int i = 0; i < 20000; ++i) v.push_back((i % 7) / 7.0);
  auto st = Summarise(v);
  EXPECT_EQ(st->method, MetricStatistics::Method::kNormal);
  EXPECT_NEAR(st->ci_high - st->mean, 1.959964 * st->stddev / std::sqrt(20000.0), 1e-9);
}

TEST(DiagnosisTest, ReadsThePipelineInOrder) {
  EXPECT_EQ(Diagnose({{"context_recall", 0.2}, {"faithfulness", 0.1}}), Diagnosis::kRetrieverMiss);
  EXPECT_EQ(Diagnose({{"context_recall", 0.9}, {"context_precision", 0.3}, {"faithfulness", 0.1}}),
            Diagnosis::kRankingNoise);
  EXPECT_EQ(Diagnose({{"context_recall", 0.9}, {"context_precision", 0.9}, {"faithfulness", 0.5}}),
            Diagnosis::kGeneratorNotGrounded);
  EXPECT_EQ(Diagnose({{"faithfulness", 0.9}, {"response_relevancy", 0.2}}), Diagnosis::kOffTopic);
  EXPECT_EQ(Diagnose({{"faithfulness", 0.9}, {"response_relevancy", 0.9}}), Diagnosis::kHealthy);
  EXPECT_EQ(Diagnose({{"bleu", 0.1}}), Diagnosis::kNotDiagnosed);
}

TEST(DiagnosisTest, ThresholdIsConfigurable) {
  EXPECT_EQ(Diagnose({{"faithfulness", 0.6}, {"context_recall", 1}}, {0.5}), Diagnosis::kHealthy);
  EXPECT_EQ(Diagnose({{"faithfulness", 0.6}, {"context_recall", 1}}, {0.7}),
            Diagnosis::kGeneratorNotGrounded);
  EXPECT_EQ(DecidingMetric(Diagnosis::kRankingNoise), "context_precision");
  EXPECT_FALSE(DiagnosisAdvice(Diagnosis::kRetrieverMiss).empty());
}

}  // namespace
}  // namespace tala::analysis
