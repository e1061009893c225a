#pragma once
// bleu: BLEU of the response against the reference with sacreBLEU's conventions, scaled to
// [0, 1]: 13a tokenisation, n-grams up to 4, clipped counts, brevity penalty
// exp(1 - ref_len / hyp_len) when the response is shorter, and exponential smoothing (the k-th
// order with no match counts as 1 / (2^k · total)). Case-sensitive, as sacreBLEU's default.
// The whole response is one segment (Ragas scores only the first sentence: a quirk we do not
// copy). Higher is better. Source: Papineni et al. 2002; Post 2018 (sacreBLEU).

#include <string>
#include <string_view>
#include <vector>

#include "metrics/metric_base.h"

namespace tala::metrics {
// sacreBLEU's 13a tokeniser (mteval-v13a).
std::vector<std::string> Tokenize13a(std::string_view text);
// Sentence BLEU in [0, 1] from two texts.
double Bleu(std::string_view hypothesis, std::string_view reference);
const MetricInfo& BleuInfo();
Result<std::unique_ptr<Metric>> MakeBleu(const MetricOptions& options);
}  // namespace tala::metrics
