// Replay-judged scoring of N rows (default 1M) with every RAG metric: rows/s for the metric
// arithmetic alone and for the whole per-row path (task plan, replay judge, metrics), and peak
// RSS, which must not grow with N. Usage: bench_metrics [ROWS].

#include <cstdio>
#include <cstdlib>

#include "bench_util.h"
#include "engine/row_scorer.h"
#include "judges/replay_judge.h"
#include "metrics/registry.h"

namespace {

tala::Sample MakeSample(long i) {
  tala::Sample s;
  s.id = std::to_string(i);
  s.user_input = "q";
  s.response = "a";
  s.reference = "r";
  s.retrieved_contexts = std::vector<std::string>(5, "chunk");
  s.retrieved_context_ids = std::vector<std::string>{"c1", "c2", "c3", "c4", "c5"};
  s.reference_context_ids = std::vector<std::string>{"c1", "c4"};
  tala::Verdicts v;
  v.chunk_relevant = std::vector<bool>{true, (i & 1) != 0, false, true, false};
  v.chunk_relevant_to_response = v.chunk_relevant;
  std::vector<tala::ClaimVerdict> claims;
  for (int c = 0; c < 6; ++c) claims.push_back({"claim", c != 5, {c % 5}, c % 3 != 0, ""});
  v.response_claims = std::move(claims);
  v.reference_claims = std::vector<tala::ReferenceClaim>(4, {"g", true, (i & 2) != 0, ""});
  v.generated_questions = std::vector<tala::GeneratedQuestion>(3, {"g?", false, 0.93});
  v.reference_entities = std::vector<std::string>{"A", "B"};
  v.context_entities = std::vector<std::string>{"A"};
  v.response_reference_similarity = 0.8;
  s.verdicts = std::move(v);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const long rows = argc > 1 ? std::atol(argv[1]) : 1000000;
  // The RAG metrics of the metric engine (judged ones and the id-based pair); the non-LLM
  // metrics have their own benchmark (bench_non_llm).
  const std::string all =
      "faithfulness,response_relevancy,context_precision,context_precision_without_reference,"
      "context_recall,noise_sensitivity,noise_sensitivity_irrelevant,factual_correctness,"
      "context_entity_recall,answer_correctness,semantic_similarity,id_based_context_precision,"
      "id_based_context_recall";
  auto metrics = tala::metrics::CreateMetrics(*tala::metrics::ParseMetricSpecs(all));
  if (!metrics) return 1;
  // A pool of distinct samples, reused, so memory does not depend on the row count.
  std::vector<tala::Sample> pool;
  for (long i = 0; i < 64; ++i) pool.push_back(MakeSample(i));

  double checksum = 0;
  double t0 = tala::bench::CpuSeconds();
  for (long i = 0; i < rows; ++i) {
    const tala::Sample& s = pool[i & 63];
    for (const auto& m : *metrics) {
      auto v = m->Score(s, *s.verdicts);
      checksum += v.value.value_or(0);
    }
  }
  double arithmetic = tala::bench::CpuSeconds() - t0;

  tala::judges::ReplayJudge judge;
  tala::RowScorer scorer(*metrics, &judge, judge.name());
  t0 = tala::bench::CpuSeconds();
  for (long i = 0; i < rows; ++i) {
    auto row = scorer.Score(pool[i & 63]);
    checksum += row.scores[0].value.value.value_or(0);
  }
  double full = tala::bench::CpuSeconds() - t0;
  std::printf(
      "| %ld rows x %zu metrics | arithmetic %.2fM rows/s | full row path %.2fM rows/s | "
      "peak RSS %.1f MiB | checksum %.1f |\n",
      rows, metrics->size(), rows / arithmetic / 1e6, rows / full / 1e6, tala::bench::PeakRssMiB(),
      checksum);
  return 0;
}
