#include "analysis/power.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tala::analysis {
namespace {

TEST(PowerTest, NormalQuantileMatchesKnownValues) {
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963985, 1e-8);
  EXPECT_NEAR(NormalQuantile(0.8), 0.841621234, 1e-8);
  EXPECT_NEAR(NormalQuantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.001), -3.090232306, 1e-8);
}

TEST(PowerTest, IssueChecks) {
  EXPECT_NEAR(MarginOfError(0.8, 50, 0.95), 0.11, 0.005);
  EXPECT_NEAR(MarginOfError(0.8, 100, 0.95), 0.078, 0.0005);
  EXPECT_EQ(std::ceil(RowsForTwoProportions(0.80, 0.85, 0.05, 0.8)), 906);
  EXPECT_EQ(std::ceil(*RowsForPairedProportions(0.80, 0.85, 0.10, 0.05, 0.8)), 312);
}

TEST(PowerTest, PairedNeedsEnoughDiscordantRows) {
  EXPECT_FALSE(RowsForPairedProportions(0.5, 0.8, 0.1, 0.05, 0.8).has_value());
}

}  // namespace
}  // namespace tala::analysis
