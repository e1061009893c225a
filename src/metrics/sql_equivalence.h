#pragma once
// sql_equivalence: does the generated query (response) return the same result as the reference
// query on every state of the database the schema (reference_contexts, joined) allows? One
// judge call that explains both queries, then decides. In {0, 1}; higher is better.
// Source: the Ragas LLMSQLEquivalence metric.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& SqlEquivalenceInfo();
Result<std::unique_ptr<Metric>> MakeSqlEquivalence(const MetricOptions& options);
}  // namespace tala::metrics
