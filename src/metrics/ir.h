#pragma once
// Retrieval (IR) metrics over ranked `retrieved_context_ids` and `reference_context_ids` (a set,
// or {id: grade} for graded relevance; grade > 0 is relevant). No judge. A duplicated id in a
// ranking counts once, at its first rank. Option k (an integer >= 1) cuts the ranking; without it
// the whole ranking counts. Definitions follow trec_eval:
//   hit_rate@k       1 when a relevant id is in the top k, else 0
//   precision@k      relevant in top k / k (trec_eval P_k: divides by k even when fewer were
//                    retrieved); without k, / number retrieved
//   recall@k         relevant in top k / relevant (recall_k)
//   mrr              1 / rank of the first relevant id, 0 when none (recip_rank)
//   average_precision  Σ over relevant ranks r of precision@r / relevant (map)
//   ndcg@k           DCG@k / ideal DCG@k, gain = grade (1 when ungraded), discount log2(rank + 1)
//                    (ndcg_cut_k)
//   r_precision      precision@R with R = number relevant (Rprec)
// All in [0, 1], higher is better. Undefined when no id is relevant (trec_eval skips such
// queries), and precision without k is undefined on an empty ranking.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& HitRateInfo();
const MetricInfo& PrecisionAtKInfo();
const MetricInfo& RecallAtKInfo();
const MetricInfo& MrrInfo();
const MetricInfo& AveragePrecisionInfo();
const MetricInfo& NdcgInfo();
const MetricInfo& RPrecisionInfo();
Result<std::unique_ptr<Metric>> MakeHitRate(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakePrecisionAtK(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeRecallAtK(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeMrr(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeAveragePrecision(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeNdcg(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeRPrecision(const MetricOptions& options);
// True for the metrics that take a cut-off k (expanded by `tala eval --k`).
bool TakesCutoff(const std::string& metric_name);
}  // namespace tala::metrics
