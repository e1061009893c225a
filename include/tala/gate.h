#pragma once
// Gate: pass/fail checks on a results file for CI, shared by `tala gate` and the Python
// package. A minimum gate fails when the metric's mean is on the wrong side of its bound
// (direction-aware); a drop gate, against a baseline results file, fails only when the whole
// 95% interval of the paired drop exceeds the allowed drop, so judge noise does not flake it.
// Pure apart from reading the files: safe to call from any thread.

#include <map>
#include <string>
#include <vector>

#include "tala/status.h"

namespace tala {

struct GateOptions {
  std::string results;                     // the results file to gate
  std::map<std::string, double> min;       // metric key -> bound on its mean
  std::string baseline;                    // results file of the baseline run (drop gates)
  std::map<std::string, double> max_drop;  // metric key -> the drop allowed against the baseline
  // Rows whose judge calls failed that still pass; more add a failing "judge failures" check.
  int64_t max_failed_rows = 0;
  bool pair_by_order = false;  // see CompareOptions::pair_by_order
};

struct GateCheck {
  std::string name;  // "faithfulness >= 0.8", "context_recall drop <= 0.05"
  bool pass = false;
  std::string detail;  // "faithfulness >= 0.8000: mean 0.7384, 95% interval [0.56, 0.89]"
};

// One check per gate, minimums first. A gate names a metric by its results key or an alias
// ("answer_relevancy"). A gated metric with no scored row (for drops: none scored in both runs)
// is a failing check. kInvalidArgument when no gate is given or a drop gate has no baseline;
// kIoError or kDataError for an unreadable results file; kNotFound when the run does not have
// the gated metric at all.
Result<std::vector<GateCheck>> Gate(const GateOptions& options);

}  // namespace tala
