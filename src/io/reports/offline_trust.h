#pragma once
// How far to trust a run of the offline judge, metric by metric, as the reports print it: each
// metric's held-out figure and what it misses (MetricInfo::offline_measured and offline_misses,
// from bench/offline_trust.sh), with the advice that goes with them.

#include <string>
#include <vector>

#include "io/readers/results_reader.h"

namespace tala::io {

struct OfflineTrustLine {
  std::string metric;  // the results file's key (context_precision, hit_rate@5, ...)
  std::string measured;
  std::string misses;
};

// One line per metric of an offline run that the offline judge answers; none for another judge.
std::vector<OfflineTrustLine> OfflineTrustLines(const ResultsFile& results);

// Said once beside the lines.
extern const char kOfflineTrustAdvice[];

}  // namespace tala::io
