#pragma once
// bleu: BLEU of the response against the reference with sacreBLEU's conventions, scaled to
// [0, 1]: 13a tokenisation, n-grams up to 4, clipped counts, brevity penalty
// exp(1 - ref_len / hyp_len) when the response is shorter, and exponential smoothing (the k-th
// order with no match counts as 1 / (2^k · total)). Case-sensitive, as sacreBLEU's default.
// The whole response is one segment, equal to plain sacreBLEU. Ragas differs on text of more
// than one sentence: it splits both texts on ". " and passes the lists to sacreBLEU's
// corpus_bleu, which then scores only the first response sentence, against every reference
// sentence as an alternative reference. Option ragas_compat=true gives Ragas' number (see
// docs/metrics.md for an example). Higher is better. Source: Papineni et al. 2002; Post 2018
// (sacreBLEU).

#include <string>
#include <string_view>
#include <vector>

#include "metrics/metric_base.h"

namespace tala::metrics {
// sacreBLEU's 13a tokeniser (mteval-v13a).
std::vector<std::string> Tokenize13a(std::string_view text);
// Sentence BLEU in [0, 1] from two texts.
double Bleu(std::string_view hypothesis, std::string_view reference);
// BLEU of one hypothesis against several references (sacreBLEU: n-grams clipped at their most
// frequent count in any one reference; the reference length closest to the hypothesis's).
double BleuMultiReference(std::string_view hypothesis,
                          const std::vector<std::string_view>& references);
// Ragas' BleuScore: the first ". "-separated response sentence against every reference sentence.
double BleuRagasCompat(std::string_view response, std::string_view reference);
const MetricInfo& BleuInfo();
Result<std::unique_ptr<Metric>> MakeBleu(const MetricOptions& options);
}  // namespace tala::metrics
