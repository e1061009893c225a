#include "io/reports/offline_trust.h"

#include "metrics/registry.h"

namespace tala::io {

const char kOfflineTrustAdvice[] =
    "The offline judge reads words and a small sentence encoder: good for iterating and for "
    "catching answers its context does not hold, not for a decision that matters. For that, "
    "score with an LLM judge (--judge openai:MODEL) and check it against a few labelled rows "
    "(tala review, then tala calibrate).";

std::vector<OfflineTrustLine> OfflineTrustLines(const ResultsFile& results) {
  std::vector<OfflineTrustLine> lines;
  if (!results.manifest || results.manifest->judge != "offline") return lines;
  for (const std::string& key : results.metric_keys) {
    const metrics::RegistryEntry* e = metrics::FindMetricOfKey(key);
    if (e == nullptr || e->info().offline_measured.empty()) continue;
    lines.push_back({key, e->info().offline_measured, e->info().offline_misses});
  }
  return lines;
}

}  // namespace tala::io
