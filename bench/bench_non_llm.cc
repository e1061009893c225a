// Non-LLM metrics: N rows (default 1M) of 10 ranked ids for the IR metrics, and N
// response/reference pairs of 40 words for the string metrics. Prints rows/s per metric on one
// core (CPU time, the best of three passes: the shared build machines are noisy) and peak RSS.
// Then the two Levenshtein kernels (scalar, AVX-512) called directly on the same pairs.
// Usage: bench_non_llm [ROWS] [METRIC-FILTER]; the filter keeps the metrics whose spec contains it.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>

#include "bench_util.h"
#include "metrics/levenshtein_avx512.h"
#include "metrics/registry.h"
#include "metrics/string_distance.h"

namespace {

std::vector<tala::Sample> MakePool(size_t n) {
  std::mt19937 rng(42);
  static const char* kWords[] = {"the",          "retriever", "returned",   "chunks", "about",
                                 "the",          "magazine",  "founded",    "in",     "1844",
                                 "Philadelphia", "literary",  "periodical", "women",  "published",
                                 "by",           "Bauer",     "Media",      "Group",  "answer"};
  std::vector<tala::Sample> pool;
  for (size_t i = 0; i < n; ++i) {
    tala::Sample s;
    std::string a, b;
    for (int w = 0; w < 40; ++w) {
      a += (w ? " " : "") + std::string(kWords[rng() % 20]);
      b += (w ? " " : "") + std::string(kWords[rng() % 20]);
    }
    s.response = a;
    s.reference = b;
    std::vector<std::string> ids, ref;
    for (int k = 0; k < 10; ++k) ids.push_back("doc" + std::to_string(rng() % 40));
    for (int k = 0; k < 3; ++k) ref.push_back("doc" + std::to_string(rng() % 40));
    s.retrieved_context_ids = ids;
    s.reference_context_ids = ref;
    pool.push_back(std::move(s));
  }
  return pool;
}

}  // namespace

int main(int argc, char** argv) {
  const long rows = argc > 1 ? std::atol(argv[1]) : 1000000;
  const std::string filter = argc > 2 ? argv[2] : "";
  std::vector<tala::Sample> pool = MakePool(256);
  const char* lists[] = {"hit_rate@5",
                         "precision@5",
                         "recall@5",
                         "mrr",
                         "average_precision",
                         "ndcg@10",
                         "r_precision",
                         "non_llm_string_similarity",
                         "non_llm_string_similarity:distance=hamming",
                         "non_llm_string_similarity:distance=jaro_winkler",
                         "exact_match",
                         "bleu",
                         "rouge",
                         "rouge:type=rouge2",
                         "chrf"};
  std::printf("| metric | rows | rows/s (one core) |\n|---|---|---|\n");
  for (const char* list : lists) {
    if (std::string(list).find(filter) == std::string::npos) continue;
    auto metrics = tala::metrics::CreateMetrics(*tala::metrics::ParseMetricSpecs(list));
    if (!metrics) return 1;
    const tala::Metric& m = *(*metrics)[0];
    // String metrics are far slower than IR ones: time them on a tenth of the rows.
    long n = std::string(list).find("@") != std::string::npos || std::string(list) == "mrr" ||
                     std::string(list) == "average_precision" || std::string(list) == "r_precision"
                 ? rows
                 : rows / 10;
    double sum = 0, cpu = 1e300;
    for (int pass = 0; pass < 3; ++pass) {
      sum = 0;
      double t0 = tala::bench::CpuSeconds();
      for (long i = 0; i < n; ++i) {
        sum += m.Score(pool[i & 255], tala::Verdicts{}).value.value_or(0);
      }
      cpu = std::min(cpu, tala::bench::CpuSeconds() - t0);
    }
    std::printf("| %s | %ld | %.0f |  (checksum %.1f)\n", m.key().c_str(), n, n / cpu, sum);
  }
  // The two Levenshtein kernels on the same pairs, called directly: the metric above takes the
  // AVX-512 one where the CPU has it; the scalar one is what other CPUs get.
  if (std::string("levenshtein_kernel").find(filter) != std::string::npos || filter.empty()) {
    using tala::metrics::LevenshteinKernel;
    const std::pair<const char*, LevenshteinKernel> kernels[] = {
        {"levenshtein_kernel=scalar", LevenshteinKernel::kScalar},
        {tala::metrics::HasAvx512Levenshtein() ? "levenshtein_kernel=avx512"
                                               : "levenshtein_kernel=avx512 (not on this CPU: "
                                                 "scalar)",
         LevenshteinKernel::kAvx512}};
    for (const auto& [name, kernel] : kernels) {
      const long n = rows / 10;
      double sum = 0, cpu = 1e300;
      for (int pass = 0; pass < 3; ++pass) {
        sum = 0;
        double t0 = tala::bench::CpuSeconds();
        for (long i = 0; i < n; ++i) {
          const tala::Sample& s = pool[i & 255];
          sum += static_cast<double>(
              tala::metrics::LevenshteinDistance(*s.response, *s.reference, kernel));
        }
        cpu = std::min(cpu, tala::bench::CpuSeconds() - t0);
      }
      std::printf("| %s | %ld | %.0f |  (checksum %.1f)\n", name, n, n / cpu, sum);
    }
  }
  std::printf("peak RSS %.1f MiB\n", tala::bench::PeakRssMiB());
  return 0;
}
