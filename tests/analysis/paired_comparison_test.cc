#include "analysis/paired_comparison.h"

#include <gtest/gtest.h>

#include <random>

namespace tala::analysis {
namespace {

TEST(PairedComparisonTest, ARealDropIsWorse) {
  std::vector<double> base(40, 0.9), cand(40, 0.6);
  auto r = ComparePaired(base, cand);
  EXPECT_NEAR(r.mean_difference, -0.3, 1e-12);
  EXPECT_EQ(r.verdict, PairedResult::Verdict::kWorse);
  EXPECT_LT(r.p_value, 0.001);
}

TEST(PairedComparisonTest, NoiseIsNoDetectableChange) {
  std::mt19937 rng(3);
  std::normal_distribution<double> noise(0, 0.05);
  std::vector<double> base, cand;
  for (int i = 0; i < 60; ++i) {
    double v = 0.7 + noise(rng);
    base.push_back(v);
    cand.push_back(v + noise(rng) * 0.2);
  }
  auto r = ComparePaired(base, cand);
  EXPECT_EQ(r.verdict, PairedResult::Verdict::kNoDetectableChange);
  EXPECT_LE(r.ci_low, 0);
  EXPECT_GE(r.ci_high, 0);
  EXPECT_GT(r.p_value, 0.05);
}

TEST(PairedComparisonTest, DirectionDecidesBetterOrWorse) {
  std::vector<double> base(30, 0.4), cand(30, 0.1);
  EXPECT_EQ(ComparePaired(base, cand, {.lower_is_better = true}).verdict,
            PairedResult::Verdict::kBetter);
  auto a = ComparePaired(base, cand), b = ComparePaired(base, cand);
  EXPECT_EQ(a.ci_low, b.ci_low);  // seeded: reproducible
}

}  // namespace
}  // namespace tala::analysis
