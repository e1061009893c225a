#pragma once
// rouge: ROUGE of the response (candidate) against the reference, as the rouge_score package
// computes it: lower-cased tokens of [a-z0-9], NLTK's Porter stemmer in its default extended mode
// (text::PorterStemNltk, as rouge_score calls it) on tokens longer than three characters (option
// stem=true, the default, as Ragas), and
//   type=rouge1 / rouge2: clipped n-gram overlap; type=rougeL (default): longest common
//   subsequence. precision = overlap / candidate units, recall = overlap / reference units,
//   fmeasure = 2PR / (P + R) (0 when both are 0); option mode=fmeasure (default)|precision|recall.
// In [0, 1]; higher is better. Source: Lin 2004.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/metric_base.h"

namespace tala::metrics {
enum class RougeType { kRouge1, kRouge2, kRougeL };
struct RougeScore {
  double precision = 0, recall = 0, fmeasure = 0;
};
std::vector<std::string> RougeTokens(std::string_view text, bool stem);
// Length of the longest common subsequence of two token-hash sequences.
size_t LcsLength(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b);
RougeScore Rouge(std::string_view candidate, std::string_view reference, RougeType type, bool stem);
const MetricInfo& RougeInfo();
Result<std::unique_ptr<Metric>> MakeRouge(const MetricOptions& options);
}  // namespace tala::metrics
