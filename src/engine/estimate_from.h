#pragma once
// EstimateMean over a results file and labels already read, so a caller estimating several
// metrics of one run (tala eval --labels) reads each file once.

#include <string>

#include "io/readers/labels_reader.h"
#include "io/readers/results_reader.h"
#include "tala/run_summary.h"  // Estimate

namespace tala {

Result<Estimate> EstimateFrom(const io::ResultsFile& results, const io::Labels& labels,
                              const std::string& metric, bool allow_biased_labels);

}  // namespace tala
