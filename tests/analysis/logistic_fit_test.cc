// The blend refit of tala align (analysis/logistic_fit.h): the pull toward the built-in weights
// holds them where the labels say nothing and yields where they insist; the best vector of a row
// of several counts, as the judge reads it.

#include "analysis/logistic_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace tala::analysis {
namespace {

// Rows of two features whose labels follow the second feature only, while the prior weighs
// the first.
std::vector<BlendRow> SecondFeatureDecides(int n, uint64_t seed, bool shuffle = false) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<BlendRow> rows;
  for (int i = 0; i < n; ++i) {
    const double a = u(rng), b = u(rng);
    rows.push_back({{{a, b}}, 0, b > 0.5});
  }
  if (shuffle) {
    std::vector<bool> labels;
    for (const BlendRow& r : rows) labels.push_back(r.positive);
    std::shuffle(labels.begin(), labels.end(), rng);
    for (size_t i = 0; i < rows.size(); ++i) rows[i].positive = labels[i];
  }
  return rows;
}

TEST(LogisticFitTest, AStrongPullKeepsThePriorAndAWeakOneFollowsTheLabels) {
  const std::vector<double> prior = {-2, 4, 0};
  const std::vector<BlendRow> rows = SecondFeatureDecides(200, 3);
  const std::vector<double> held = FitBlendToward(rows, prior, 1e6);
  for (size_t i = 0; i < prior.size(); ++i) EXPECT_NEAR(held[i], prior[i], 0.01);
  const std::vector<double> free = FitBlendToward(rows, prior, 0.3);
  EXPECT_LT(std::abs(free[1]), 1.5);  // the first feature tells nothing
  EXPECT_GT(free[2], 6);              // the second tells all
  // Scores follow the second feature now.
  EXPECT_GT(BlendRowScore(free, {{{0.1, 0.9}}, 0, true}),
            BlendRowScore(free, {{{0.9, 0.1}}, 0, false}));
}

TEST(LogisticFitTest, CrossValidationRefitsWhenLabelsInsistAndKeepsAPriorThatRanksThemRight) {
  const std::vector<double> prior = {-2, 4, 0};
  const BlendChoice learned = RefitBlend(SecondFeatureDecides(100, 5), prior, 5, 1);
  EXPECT_GT(learned.lambda, 0);
  EXPECT_GT(learned.weights[2], 2);
  // A prior that already ranks the rows right is kept (ties go to the stronger pull).
  const BlendChoice right = RefitBlend(SecondFeatureDecides(100, 5), {-4, 0, 8}, 5, 1);
  EXPECT_EQ(right.lambda, 0);
  EXPECT_EQ(right.weights, (std::vector<double>{-4, 0, 8}));
}

TEST(LogisticFitTest, ARowOfSeveralVectorsIsScoredByItsBestAndAFixedRowStaysFixed) {
  const std::vector<double> w = {0, 1, 0};
  const BlendRow chunks{{{-3, 0}, {2, 0}, {0, 0}}, 0, true};
  EXPECT_NEAR(BlendRowScore(w, chunks), 1 / (1 + std::exp(-2.0)), 1e-12);
  EXPECT_EQ(BlendRowScore(w, {{}, 0.25, false}), 0.25);
  // The fit reads the best chunk: a row whose best chunk is positive pulls its weight up.
  std::vector<BlendRow> rows;
  for (int i = 0; i < 40; ++i) {
    const double x = (i % 10) / 10.0;
    rows.push_back({{{x, 0}, {0.0, 0}}, 0, x > 0.45});
  }
  const std::vector<double> fitted = FitBlendToward(rows, {0, 0, 0}, 0.3);
  EXPECT_GT(fitted[1], 3);
}

}  // namespace
}  // namespace tala::analysis
