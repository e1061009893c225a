#pragma once
// A logistic blend refitted to people's labels (tala align, issue 55 item 1): the offline judge
// scores a row as the largest logistic of its feature vectors under its weights (one vector for
// a response; one a chunk for a context, where the best chunk counts). Given labelled rows, the
// weights that maximise the labels' likelihood less an L2 pull toward the built-in weights, so a
// few dozen labels move them only as far as the labels insist. The pull's strength is chosen by
// cross-validation (RefitBlend), with "keep the built-in weights" among the choices.

#include <cstdint>
#include <vector>

namespace tala::analysis {

struct BlendRow {
  // Candidate feature vectors (the score is the largest logistic of them); empty when no weight
  // changes the row's score, which is then `fixed`.
  std::vector<std::vector<double>> vectors;
  double fixed = 0;
  bool positive = false;  // the person's verdict
};

// The row's score under `weights` (bias first, then one per feature).
double BlendRowScore(const std::vector<double>& weights, const BlendRow& row);

// The weights minimising the rows' log loss + lambda/2 |weights - prior|^2 (Newton's method; for
// rows of several vectors, the best vector under the current weights at each step). `prior`
// fixes the dimension; rows with no vectors play no part.
std::vector<double> FitBlendToward(const std::vector<BlendRow>& rows,
                                   const std::vector<double>& prior, double lambda);

// The pulls tried, strongest first; 0 stands for "keep `prior`" (an infinite pull).
const std::vector<double>& BlendPulls();

struct BlendChoice {
  double lambda = 0;  // 0: keep the prior
  std::vector<double> weights;
};
// The pull whose weights rank the rows best (AUROC) on `folds`-fold cross-validation within
// `rows` (seeded), ties to the stronger pull; then the weights fitted with it on every row.
BlendChoice RefitBlend(const std::vector<BlendRow>& rows, const std::vector<double>& prior,
                       int folds, uint64_t seed);

}  // namespace tala::analysis
