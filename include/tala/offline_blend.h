#pragma once
// OfflineBlend: the weights of the offline judge's blended relevance readings
// (src/judges/offline/relevance_blend.h), when a judge profile (tala align, issue 55) refits them
// to a project's labels. Each list is the logistic's bias and then one weight per feature, in
// the order the judge names them (OfflineBlendFeatures, engine/offline_blend_readings.h); an
// empty list keeps the judge's built-in weights.

#include <vector>

namespace tala {

struct OfflineBlend {
  std::vector<double> response_relevancy;
  std::vector<double> context_relevance;
  bool empty() const { return response_relevancy.empty() && context_relevance.empty(); }
};

}  // namespace tala
