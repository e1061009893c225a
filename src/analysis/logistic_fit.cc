#include "analysis/logistic_fit.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "analysis/folds.h"
#include "analysis/judge_agreement.h"
#include "core/logistic.h"

namespace tala::analysis {

namespace {

// The row's best vector under `w`, as the judge reads it.
const std::vector<double>& BestVector(const std::vector<double>& w, const BlendRow& row) {
  size_t best = 0;
  for (size_t i = 1; i < row.vectors.size(); ++i) {
    if (BlendLinear(w, row.vectors[i]) > BlendLinear(w, row.vectors[best])) best = i;
  }
  return row.vectors[best];
}

double Objective(const std::vector<BlendRow>& rows, const std::vector<double>& w,
                 const std::vector<double>& prior, double lambda) {
  double loss = 0;
  for (const BlendRow& r : rows) {
    if (r.vectors.empty()) continue;
    const double z = BlendLinear(w, BestVector(w, r));
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
  return BlendScore(weights, BestVector(weights, row));
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
      const double p = Logistic(BlendLinear(w, v));
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
  std::mt19937_64 rng(seed);
  const Folds split(rows.size(), folds, rng);
  BlendChoice best;
  double best_auroc = -1;
  for (double lambda : BlendPulls()) {
    std::vector<LabelledScore> held(rows.size());
    for (int k = 0; k < split.count(); ++k) {
      const std::vector<double> w =
          lambda == 0 ? prior : FitBlendToward(split.Outside(rows, k), prior, lambda);
      for (size_t i : split.Inside(k)) held[i] = {rows[i].positive, BlendRowScore(w, rows[i]), ""};
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
