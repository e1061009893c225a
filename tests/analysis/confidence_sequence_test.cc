#include "analysis/confidence_sequence.h"

#include <gtest/gtest.h>

#include <random>

namespace tala::analysis {
namespace {

// Anytime validity: over many runs whose true mean sits exactly on the gate, the interval looked
// at after every value excludes the truth (a decision either way) in at most alpha of them.
TEST(ConfidenceSequenceTest, LookingAfterEveryValueStillErrsInAtMostAlphaOfRuns) {
  std::mt19937_64 rng(7);
  std::bernoulli_distribution faithful(0.7);
  int wrong = 0;
  const int runs = 1000;
  for (int r = 0; r < runs; ++r) {
    ConfidenceSequence cs(0.05, 0, 1, 200);
    for (int i = 0; i < 400; ++i) {
      cs.Add(faithful(rng) ? 1.0 : 0.0);
      if (cs.lower() > 0.7 || cs.upper() < 0.7) {
        ++wrong;
        break;
      }
    }
  }
  EXPECT_LE(wrong, 0.05 * runs);
  // Nothing changed between two runs but the judge's noise: paired differences around 0. A
  // max-drop gate of 0.05 fails wrongly in at most alpha of the runs.
  std::uniform_int_distribution<int> noise(-2, 2);
  int failed = 0;
  for (int r = 0; r < runs; ++r) {
    ConfidenceSequence cs(0.05, -1, 1, 200);
    for (int i = 0; i < 400; ++i) {
      cs.Add(0.1 * noise(rng));
      if (cs.lower() > 0.05) {
        ++failed;
        break;
      }
    }
  }
  EXPECT_LE(failed, 0.05 * runs);
}

// Paired differences that are mostly 0 (most rows unchanged) narrow fast: a drop of 0.1 is told
// from no drop in well under 400 rows.
TEST(ConfidenceSequenceTest, MostlyZeroDifferencesDecideQuickly) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  ConfidenceSequence cs(0.05, -1, 1);
  int decided_at = 0;
  for (int i = 1; i <= 400 && decided_at == 0; ++i) {
    cs.Add(u(rng) < 0.1 ? -1.0 : 0.0);       // 10% of rows lose their support: mean -0.1
    if (cs.upper() < -0.02) decided_at = i;  // the drop is surely above 0.02
  }
  EXPECT_GT(decided_at, 0);
  EXPECT_LT(decided_at, 200);
  EXPECT_LE(cs.lower(), -0.1);
  EXPECT_GE(cs.upper(), -0.1);
  ConfidenceSequence empty(0.05);
  EXPECT_EQ(empty.lower(), 0);
  EXPECT_EQ(empty.upper(), 1);
}

}  // namespace
}  // namespace tala::analysis
