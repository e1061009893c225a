#pragma once
// The offline judge's blend readings of a dataset's rows, for tala align (issue 55 item 1) to
// refit the weights of its relevance blends on a project's labels: the features each row's
// score is read from, exactly as the judge reads them when it scores the row.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tala/offline_blend.h"
#include "tala/status.h"

namespace tala {

// A blend's features named, and its built-in weights (the bias, then one per feature).
struct BlendSpec {
  std::string metric;  // response_relevancy | context_relevance
  std::vector<std::string> features;
  std::vector<double> built_in;
};
// The blend that scores `metric` (answer_relevancy is response_relevancy's other name);
// kNotFound for a metric the offline judge does not read through a blend.
Result<BlendSpec> OfflineBlendOf(const std::string& metric);
// The weights of `blend` that score `spec`'s metric (empty: built-in).
std::vector<double>& WeightsOf(OfflineBlend& blend, const BlendSpec& spec);

struct BlendReading {
  // The feature vectors whose largest logistic is the row's score: the response's, for
  // response_relevancy; each chunk's, for context_relevance. Empty when no weight can change
  // the score (a noncommittal response reads 0).
  std::vector<std::vector<double>> vectors;
};

struct BlendReadings {
  std::map<std::string, BlendReading> rows;  // by id
  int64_t conversations = 0;  // rows of `ids` that are conversations: not read (turns differ)
  int64_t unread = 0;         // rows of `ids` the judge could not read (the reason below)
  std::string why_unread;
};

// Reads the rows of `dataset` whose id is in `ids` through the offline judge, for `spec`'s
// metric. kNotFound when the sentence encoder is not there (the blends need it, and say how to
// fetch it); reading errors name the file.
Result<BlendReadings> ReadOfflineBlend(const std::string& dataset, const std::set<std::string>& ids,
                                       const BlendSpec& spec);

}  // namespace tala
