#pragma once
// JUnit XML for CI test tabs: one <testcase> per check, <failure> with the reason when it fails.
// `tala gate --junit` writes one case per gate; `tala report --junit` one per metric (failing
// when the metric has rows whose judge call failed, or no scored row). Pure; thread-safe.

#include <string>
#include <vector>

#include "io/readers/results_reader.h"

namespace tala::io {

struct JunitCase {
  std::string name;
  bool passed = true;
  std::string message;  // the outcome, shown as the failure message or system-out
};

std::string RenderJunit(const std::string& suite, const std::vector<JunitCase>& cases);
// One case per metric of the results file.
std::vector<JunitCase> MetricCases(const ResultsFile& results);

}  // namespace tala::io
