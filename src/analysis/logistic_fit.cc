#include "analysis/logistic_fit.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "analysis/judge_agreement.h"

namespace tala::analysis {

namespace {

double Logistic(double z) { return 1.0 / (1.0 + std::exp(-z)); }

double Linear(const std::vector<double>& w, const std::vector<double>& x) {
  double z = w.empty() ? 0.0 : w[0];
  for (size_t i = 0; i < x.size() && i + 1 < w.size(); ++i) z += w[i + 1] * x[i];
  return z;
}

// The row's best vector under `w`, as the judge reads it.
const std::vector<double>& BestVector(const std::vector<double>& w, const BlendRow& row) {
  size_t best = 0;
  for (size_t i = 1; i < row.vectors.size(); ++i) {
    if (Linear(w, row.vectors[i]) > Linear(w, row.vectors[best])) best = i;
  }
  return row.vectors[best];
}

double Objective(const std::vector<BlendRow>& rows, const std::vector<double>& w,
                 const std::vector<double>& prior, double lambda) {
  double loss = 0;
  for (const BlendRow& r : rows) {
    if (r.vectors.empty()) continue;
    const double z = Linear(w, BestVector(w, r));
    // log(1 + e^-z) for a positive row, log(1 + e^z) for a negative one, without overflow.
    const double m = r.positive ? -z : z;
    loss += m > 0 ? m + std::log1p(std::exp(-m)) : std::log1p(std::exp(m));
  }
  for (size_t i = 0; i < w.size(); ++i)
    loss += 0.5 * lambda * (w[i] - prior[i]) * (w[i] - prior[i]);
  return loss;
}

// Solves A x = b for a small symmetric positive-definite A (Gaussian elimination with partial
// pivoting); false when A is singular.
bool Solve(std::vector<std::vector<double>> a, std::vector<double> b, std::vector<double>& x) {
  const size_t n = b.size();
  for (size_t c = 0; c < n; ++c) {
    size_t pivot = c;
    for (size_t r = c + 1; r < n; ++r) {
      if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
    }
    if (std::abs(a[pivot][c]) < 1e-12) return false;
    std::swap(a[c], a[pivot]);
    std::swap(b[c], b[pivot]);
    for (size_t r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      for (size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  x.assign(n, 0);
  for (size_t r = n; r-- > 0;) {
    double sum = b[r];
    for (size_t k = r + 1; k < n; ++k) sum -= a[r][k] * x[k];
    x[r] = sum / a[r][r];
  }
  return true;
}

}  // namespace

double BlendRowScore(const std::vector<double>& weights, const BlendRow& row) {
  if (row.vectors.empty()) return row.fixed;
  return Logistic(Linear(weights, BestVector(weights, row)));
}

std::vector<double> FitBlendToward(const std::vector<BlendRow>& rows,
                                   const std::vector<double>& prior, double lambda) {
  const size_t d = prior.size();
  std::vector<double> w = prior;
  double current = Objective(rows, w, prior, lambda);
  for (int iteration = 0; iteration < 100; ++iteration) {
    std::vector<double> gradient(d, 0);
    std::vector<std::vector<double>> hessian(d, std::vector<double>(d, 0));
    for (const BlendRow& r : rows) {
      if (r.vectors.empty()) continue;
      const std::vector<double>& v = BestVector(w, r);
      std::vector<double> x(d, 0);
      x[0] = 1;
      for (size_t i = 0; i + 1 < d && i < v.size(); ++i) x[i + 1] = v[i];
      const double p = Logistic(Linear(w, v));
      const double curvature = std::max(p * (1 - p), 1e-10);
      for (size_t i = 0; i < d; ++i) {
        gradient[i] += (p - (r.positive ? 1.0 : 0.0)) * x[i];
        for (size_t j = 0; j < d; ++j) hessian[i][j] += curvature * x[i] * x[j];
      }
    }
    for (size_t i = 0; i < d; ++i) {
      gradient[i] += lambda * (w[i] - prior[i]);
      hessian[i][i] += lambda;
    }
    std::vector<double> step;
    if (!Solve(hessian, gradient, step)) break;
    // Halve the step until the objective falls (the best vector may change under a full step).
    double scale = 1;
    std::vector<double> next(d);
    double value = current;
    for (; scale > 1e-6; scale /= 2) {
      for (size_t i = 0; i < d; ++i) next[i] = w[i] - scale * step[i];
      value = Objective(rows, next, prior, lambda);
      if (value < current) break;
    }
    if (!(value < current)) break;
    const double moved = current - value;
    w = next;
    current = value;
    if (moved < 1e-10 * std::max(1.0, current)) break;
  }
  return w;
}

const std::vector<double>& BlendPulls() {
  static const std::vector<double> kPulls = {0, 100, 30, 10, 3, 1, 0.3};
  return kPulls;
}

BlendChoice RefitBlend(const std::vector<BlendRow>& rows, const std::vector<double>& prior,
                       int folds, uint64_t seed) {
  std::vector<size_t> order(rows.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  folds = std::clamp(folds, 2, std::max(2, static_cast<int>(rows.size())));
  BlendChoice best;
  double best_auroc = -1;
  for (double lambda : BlendPulls()) {
    std::vector<LabelledScore> held(rows.size());
    for (int k = 0; k < folds; ++k) {
      std::vector<BlendRow> train;
      for (size_t j = 0; j < order.size(); ++j) {
        if (static_cast<int>(j % folds) != k) train.push_back(rows[order[j]]);
      }
      const std::vector<double> w = lambda == 0 ? prior : FitBlendToward(train, prior, lambda);
      for (size_t j = 0; j < order.size(); ++j) {
        if (static_cast<int>(j % folds) != k) continue;
        const BlendRow& r = rows[order[j]];
        held[order[j]] = {r.positive, BlendRowScore(w, r), ""};
      }
    }
    const double auroc = Auroc(held).value_or(0.5);
    if (auroc > best_auroc + 1e-9) {
      best_auroc = auroc;
      best.lambda = lambda;
    }
  }
  best.weights = best.lambda == 0 ? prior : FitBlendToward(rows, prior, best.lambda);
  return best;
}

}  // namespace tala::analysis
