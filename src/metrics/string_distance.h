#pragma once
// String distances on Unicode code points (not bytes), and the metrics built on them:
//   non_llm_string_similarity (option distance=levenshtein|hamming|jaro|jaro_winkler, default
//   levenshtein): 1 - normalised distance between response and reference, in [0, 1].
//   levenshtein: 1 - edits / max(length); hamming: the shorter string is padded, 1 - mismatches /
//   max(length); jaro and jaro_winkler (prefix scale 0.1, prefix up to 4) are similarities already.
//   Jaro counts half the out-of-order matches rounded down as transpositions, and Winkler's prefix
//   bonus is added only when Jaro is above 0.7. Two empty strings are identical (1). Higher is
//   better. As rapidfuzz computes them, with the reference as the first string (Ragas' order).
//   exact_match: 1 when response == reference, else 0. string_presence: 1 when the reference
//   occurs in the response, else 0. Source: the Ragas string metrics.

#include <string_view>
#include <vector>

#include "metrics/metric_base.h"

namespace tala::metrics {

enum class Distance { kLevenshtein, kHamming, kJaro, kJaroWinkler };

std::vector<char32_t> CodePoints(std::string_view utf8);
// Similarity in [0, 1] (1 - normalised distance).
double StringSimilarity(std::string_view a, std::string_view b, Distance d);
double StringSimilarity(const std::vector<char32_t>& a, const std::vector<char32_t>& b, Distance d);
// Which Levenshtein kernel runs. kAuto (what the metric uses): the AVX-512 kernel for patterns of
// 65..512 symbols where the CPU has it, the scalar bit-parallel one otherwise. kScalar and kAvx512
// force one (kAvx512 falls back to kScalar on a CPU without it), so tests check both.
enum class LevenshteinKernel { kAuto, kScalar, kAvx512 };
size_t LevenshteinDistance(const std::vector<char32_t>& a, const std::vector<char32_t>& b,
                           LevenshteinKernel kernel = LevenshteinKernel::kAuto);
// UTF-8 in: bytes when both are ASCII, code points otherwise.
size_t LevenshteinDistance(std::string_view a, std::string_view b,
                           LevenshteinKernel kernel = LevenshteinKernel::kAuto);
double JaroSimilarity(const std::vector<char32_t>& a, const std::vector<char32_t>& b);
Result<Distance> ParseDistance(const std::string& metric, const MetricOptions& options);

const MetricInfo& StringSimilarityInfo();
const MetricInfo& ExactMatchInfo();
const MetricInfo& StringPresenceInfo();
Result<std::unique_ptr<Metric>> MakeStringSimilarity(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeExactMatch(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeStringPresence(const MetricOptions& options);

}  // namespace tala::metrics
