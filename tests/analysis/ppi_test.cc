// Prediction-powered means: exact on a hand-checked example, and valid coverage on synthetic data
// with a known truth and a biased judge.

#include "analysis/ppi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

namespace tala::analysis {
namespace {

TEST(PpiTest, AHandCheckedExample) {
  // N = 6 judge values, 3 of them labelled. mean_N(f) = 0.75; f − y = (−0.1, 0.8, −0.3), mean
  // 0.1333; θ = 0.6167; Var = 0.035/6 + 0.3433/3 = 0.1203; θ ± 1.96·0.3468.
  PpiResult r = PredictionPoweredMean({0.9, 0.8, 0.7, 0.6, 0.5, 1.0}, {0.9, 0.8, 0.7}, {1, 0, 1});
  EXPECT_NEAR(r.ppi.mean, 0.617, 5e-4);
  EXPECT_NEAR(r.ppi.low, -0.063, 5e-4);
  EXPECT_NEAR(r.ppi.high, 1.296, 5e-4);
  EXPECT_NEAR(r.judge.mean, 0.750, 5e-4);
  EXPECT_NEAR(r.human.mean, 0.667, 5e-4);
  EXPECT_NEAR(r.rectifier, 0.133, 5e-4);
  EXPECT_NEAR(r.effective_n, 2.771, 5e-4);
  EXPECT_EQ(r.ppi.n, 6);
  EXPECT_EQ(r.human.n, 3);
}

// A judge biased by +0.1 over N = 10,000 rows, n = 100 uniformly labelled: over 400 seeded
// repetitions the PPI interval covers the true mean at about its 95% rate, while the judge-only
// interval, narrow and off by the bias, almost never does.
TEST(PpiTest, CoversTheTruthWhereTheBiasedJudgeDoesNot) {
  std::mt19937_64 rng(20230);
  std::normal_distribution<double> truth_noise(0.0, 0.15), judge_noise(0.0, 0.1);
  std::uniform_real_distribution<double> base(0.3, 0.9);
  const int kN = 10000, kLabelled = 100, kRepeats = 400;
  int ppi_covers = 0, judge_covers = 0;
  for (int rep = 0; rep < kRepeats; ++rep) {
    std::vector<double> y(kN), f(kN);
    double truth = 0;
    for (int i = 0; i < kN; ++i) {
      y[i] = base(rng) + truth_noise(rng);
      f[i] = y[i] + 0.1 + judge_noise(rng);
      truth += y[i];
    }
    truth /= kN;
    std::vector<int> order(kN);
    for (int i = 0; i < kN; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<double> fl, yl;
    for (int i = 0; i < kLabelled; ++i) {
      fl.push_back(f[order[i]]);
      yl.push_back(y[order[i]]);
    }
    PpiResult r = PredictionPoweredMean(f, fl, yl);
    ppi_covers += r.ppi.low <= truth && truth <= r.ppi.high;
    judge_covers += r.judge.low <= truth && truth <= r.judge.high;
  }
  EXPECT_GE(ppi_covers, 0.93 * kRepeats) << ppi_covers;
  EXPECT_LE(judge_covers, 0.05 * kRepeats) << judge_covers;
}

// tala review --pick active (issue 55 item 4): rows are drawn with the chances given, exactly n
// of them, and the weighted estimate stays unbiased while its interval narrows where the judge
// is sure of most rows.
TEST(PpiTest, ActivePicksDrawTheirChancesAndTheWeightedEstimateStaysUnbiased) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  // A judge sure of most rows (0.005 or 0.995) and unsure of a fifth (0.5); labels drawn as
  // Bernoulli of the judge's value: a calibrated judge.
  std::vector<double> f, y;
  for (int i = 0; i < 500; ++i) {
    const double v = i % 5 == 0 ? 0.5 : (i % 2 ? 0.995 : 0.005);
    f.push_back(v);
    y.push_back(u(rng) < v ? 1.0 : 0.0);
  }
  double truth = 0;
  for (double v : y) truth += v / 500;
  const std::vector<double> chances = ActivePickChances(f, 60);
  double sum = 0;
  for (double p : chances) {
    EXPECT_GT(p, 0);
    EXPECT_LE(p, 1);
    sum += p;
  }
  EXPECT_NEAR(sum, 60, 1e-9);
  EXPECT_GT(chances[0], chances[1]);  // the unsure row is likelier to be picked
  std::vector<int> drawn(500, 0);
  double error = 0, error2 = 0, width_active = 0, width_random = 0;
  const int sims = 400;
  for (int s = 0; s < sims; ++s) {
    std::vector<size_t> picked = DrawWithChances(chances, static_cast<uint64_t>(s));
    ASSERT_EQ(picked.size(), 60u);
    std::vector<double> fl, yl, pi;
    for (size_t i : picked) {
      ++drawn[i];
      fl.push_back(f[i]);
      yl.push_back(y[i]);
      pi.push_back(chances[i]);
    }
    const PpiResult r = PredictionPoweredMeanWeighted(f, fl, yl, pi);
    error += (r.ppi.mean - truth) / sims;
    error2 += (r.ppi.mean - truth) * (r.ppi.mean - truth) / sims;
    width_active += (r.ppi.high - r.ppi.low) / sims;
    std::vector<double> fr, yr;
    for (int k = 0; k < 60; ++k) {
      const size_t i = static_cast<size_t>(rng() % 500);
      fr.push_back(f[i]);
      yr.push_back(y[i]);
    }
    const PpiResult plain = PredictionPoweredMean(f, fr, yr);
    width_random += (plain.ppi.high - plain.ppi.low) / sims;
  }
  const double se = std::sqrt((error2 - error * error) / sims);
  EXPECT_LT(std::abs(error), 3 * se + 1e-4) << "bias " << error << ", se " << se;
  EXPECT_LT(width_active, 0.9 * width_random);
  // Each row is drawn about as often as its chance says.
  EXPECT_NEAR(drawn[0] / double(sims), chances[0], 0.08);
  EXPECT_NEAR(drawn[1] / double(sims), chances[1], 0.05);
  // Equal chances give the plain estimate.
  std::vector<double> equal(60, 60.0 / 500);
  std::vector<double> fl(f.begin(), f.begin() + 60), yl(y.begin(), y.begin() + 60);
  EXPECT_NEAR(PredictionPoweredMeanWeighted(f, fl, yl, equal).ppi.mean,
              PredictionPoweredMean(f, fl, yl).ppi.mean, 1e-12);
  auto need = LabelsForWidth(f, 0.1);
  ASSERT_TRUE(need.has_value());
  EXPECT_LT(need->active, need->uniform);
  EXPECT_FALSE(LabelsForWidth(f, 0.001).has_value());  // the judge's own spread is wider
}

// The active pick is stratified by the judge's value: each stratum gets a whole number of labels
// (two at least), drawn exactly, and the estimate reads the judge's error stratum by stratum. A
// judge that is wrong by a like amount on like values (here: 0.7 on rows people call wrong, as
// a graded support score can be) then costs few labels, where the unstratified reading pays
// for the spread of its errors. Unbiased, and its interval holds the truth about 95% of the
// time; labels that are not such a pick (a random subset) are read as before.
TEST(PpiTest, TheActivePickIsStratifiedAndItsEstimateReadsTheErrorStratumByStratum) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> f, y;
  for (int i = 0; i < 600; ++i) {
    const int kind = i % 4;  // right (1.0), wrong (0.0), graded wrong (0.7), graded unsure (0.4)
    const double v = kind == 0 ? 1.0 : kind == 1 ? 0.0 : kind == 2 ? 0.7 : 0.4;
    f.push_back(v);
    y.push_back(kind == 0   ? (u(rng) < 0.92 ? 1.0 : 0.0)
                : kind == 3 ? (u(rng) < 0.3 ? 1.0 : 0.0)
                            : 0.0);
  }
  double truth = 0;
  for (double v : y) truth += v / 600;
  const long n = 40;
  const std::vector<double> chances = ActivePickChances(f, n);
  std::vector<int> strata;
  for (double v : f) strata.push_back(ActiveStratum(v));
  std::map<int, double> per_stratum;
  double sum = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    per_stratum[strata[i]] += chances[i];
    sum += chances[i];
  }
  EXPECT_NEAR(sum, n, 1e-9);
  for (const auto& [h, k] : per_stratum) {
    EXPECT_NEAR(k, std::round(k), 1e-9) << "stratum " << h;
    EXPECT_GE(k, 2 - 1e-9) << "stratum " << h;
  }
  EXPECT_GT(chances[3], chances[0]);  // the unsure value (0.4) is likelier to be picked
  double error = 0, error2 = 0, width_active = 0, width_random = 0;
  int covered = 0;
  const int sims = 400;
  for (int s = 0; s < sims; ++s) {
    const ActivePick pick = DrawActivePick(f, n, static_cast<uint64_t>(s));
    ASSERT_EQ(pick.chances, chances);
    const std::vector<size_t>& picked = pick.rows;
    ASSERT_EQ(picked.size(), static_cast<size_t>(n));
    std::map<int, double> drawn;
    std::vector<double> fl, yl, pi;
    for (size_t i : picked) {
      drawn[strata[i]] += 1;
      fl.push_back(f[i]);
      yl.push_back(y[i]);
      pi.push_back(chances[i]);
    }
    for (const auto& [h, k] : per_stratum) EXPECT_NEAR(drawn[h], k, 1e-9);
    const PpiResult r = PredictionPoweredMeanWeighted(f, fl, yl, pi);
    error += (r.ppi.mean - truth) / sims;
    error2 += (r.ppi.mean - truth) * (r.ppi.mean - truth) / sims;
    width_active += (r.ppi.high - r.ppi.low) / sims;
    covered += r.ppi.low <= truth && truth <= r.ppi.high;
    std::vector<double> fr, yr;
    std::vector<size_t> order(600);
    std::iota(order.begin(), order.end(), size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    for (long k = 0; k < n; ++k) {
      fr.push_back(f[order[k]]);
      yr.push_back(y[order[k]]);
    }
    width_random +=
        (PredictionPoweredMean(f, fr, yr).ppi.high - PredictionPoweredMean(f, fr, yr).ppi.low) /
        sims;
  }
  const double se = std::sqrt((error2 - error * error) / sims);
  EXPECT_LT(std::abs(error), 3 * se + 1e-4) << "bias " << error << ", se " << se;
  EXPECT_LT(width_active, 0.7 * width_random) << width_active << " vs " << width_random;
  EXPECT_GE(covered, 0.92 * sims) << covered;
  // Fewer labels than two a stratum: the unstratified chances, still summing to n.
  const std::vector<double> few = ActivePickChances(f, 5);
  double few_sum = 0;
  for (double p : few) few_sum += p;
  EXPECT_NEAR(few_sum, 5, 1e-9);
  EXPECT_GT(few[3], few[0]);
}

}  // namespace
}  // namespace tala::analysis
