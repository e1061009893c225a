#pragma once
// The arithmetic of a logistic blend, shared by the offline judge, which scores with a blend's
// weights (judges/offline/relevance_blend.h), and tala align's refit, which fits them
// (analysis/logistic_fit.h): the two must read a row alike, or a refit would be measured on
// scores the judge never gives. Weights are the bias, then one per feature.

#include <cmath>
#include <cstddef>
#include <span>

namespace tala {

inline double Logistic(double z) { return 1.0 / (1.0 + std::exp(-z)); }

// The bias plus the weighted features (features past the weights, or weights past the features,
// count for nothing).
inline double BlendLinear(std::span<const double> weights, std::span<const double> features) {
  double z = weights.empty() ? 0.0 : weights[0];
  for (size_t i = 0; i < features.size() && i + 1 < weights.size(); ++i) {
    z += weights[i + 1] * features[i];
  }
  return z;
}

inline double BlendScore(std::span<const double> weights, std::span<const double> features) {
  return Logistic(BlendLinear(weights, features));
}

}  // namespace tala
