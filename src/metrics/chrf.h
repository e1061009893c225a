#pragma once
// chrf: chrF (word_order=0, the default) or chrF++ (word_order=2) of the response against the
// reference, as sacreBLEU computes a sentence: character n-grams of orders 1..6 with whitespace
// removed, word n-grams of orders 1..word_order (punctuation split off words), per order precision
// and recall, averaged over the orders present on both sides, then
// F-beta = (1 + β²)·P·R / (β²·P + R) with β = 2 (option beta). Scaled to [0, 1]; higher is better.
// Source: Popović 2015 (chrF), 2017 (chrF++); Post 2018 (sacreBLEU).

#include <string_view>

#include "metrics/metric_base.h"

namespace tala::metrics {
double Chrf(std::string_view hypothesis, std::string_view reference, int word_order, double beta);
const MetricInfo& ChrfInfo();
Result<std::unique_ptr<Metric>> MakeChrf(const MetricOptions& options);
}  // namespace tala::metrics
