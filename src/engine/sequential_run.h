#pragma once
// --sequential's pieces for Evaluate (tala/evaluate.h SequentialOptions): the dataset's rows in a
// seeded random order, and the monitor that reads each judged row into a confidence sequence per
// gate and says when every gate is decided. One thread.

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis/confidence_sequence.h"
#include "fs/scratch_file.h"
#include "io/writers/results_jsonl_writer.h"
#include "tala/evaluate.h"
#include "tala/run_summary.h"

namespace tala {

// A copy of the JSON Lines dataset `path` with its rows in a seeded random order, in a scratch
// file. kInvalidArgument for a dataset that is not JSON Lines.
Result<fs::ScratchFile> ShuffledCopy(const std::string& path, const std::string& format,
                                     uint64_t seed);

// The summary's line: how many rows decided it, each gate's verdict and interval, what was saved.
std::string SequentialNote(const SequentialOutcome& outcome);

class SequentialMonitor {
 public:
  // kInvalidArgument naming a gate on a metric the run does not score, or an unreadable baseline.
  static Result<std::unique_ptr<SequentialMonitor>> Create(
      const SequentialOptions& options, const std::vector<MetricSummary>& metrics);

  void Add(const io::RowResult& row);
  bool Decided() const;
  // The outcome, with the rows not judged among `ids` (every id of the dataset) written to
  // `out` + ".not-judged.jsonl".
  Result<SequentialOutcome> Finish(const std::vector<std::string>& ids, const std::string& out);

 private:
  struct Gate {
    std::string name, metric;
    bool drop = false;  // a paired drop against the baseline
    bool higher_better = true;
    double limit = 0;
    std::unique_ptr<analysis::ConfidenceSequence> cs;
    int decision = 0;  // 0 undecided, 1 pass, -1 fail: once decided, it stays
  };
  void Decide(Gate& g);
  SequentialOptions options_;
  std::vector<Gate> gates_;
  std::map<std::string, std::map<std::string, double>> baseline_;  // metric -> id -> value
  std::set<std::string> judged_;
};

}  // namespace tala
