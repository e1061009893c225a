#pragma once
// RunTally: the run-level accumulators beside the summary: counts per metric, a bounded sample
// of values for medians and intervals, each row's diagnosis and the rows that failed a stage.
// Used by Evaluate for scored rows and for rows kept from a results file (--resume).
// Not thread-safe.

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "analysis/diagnosis.h"
#include "engine/kept_rows.h"
#include "io/readers/results_reader.h"
#include "io/writers/results_jsonl_writer.h"
#include "tala/evaluate.h"

namespace tala {

// A row's diagnosis from its scores. A conversation (row.turns set): each turn diagnosed on its
// own scores (filled in), and the conversation's diagnosis its first failing turn's (set as
// row.first_failing_turn: the first break explains what follows it), healthy when a turn is
// and none fails. `deciding` (when given) gets the scores the diagnosis was read from. Sets
// row.diagnosis. tala eval's tally and tala serve's scorer both diagnose by it.
analysis::Diagnosis DiagnoseResult(io::RowResult& row, const analysis::DiagnosisRule& rule,
                                   std::map<std::string, double>* deciding = nullptr);

class RunTally {
 public:
  // REQUIRES: summary.metrics lists the run's metrics; `summary` outlives the tally.
  RunTally(RunSummary& summary, analysis::DiagnosisRule rule);
  // Sets row.diagnosis from its scores.
  void Diagnose(io::RowResult& row);
  void Add(const io::RowResult& row);
  // Row `i` of `rows`, already in a results file, counted as the run that wrote it counted it:
  // its scores, failures and diagnosis as written. kResumed: kept by --resume; kMerged: read
  // from a shard.
  enum class Kept { kResumed, kMerged };
  void AddKept(const KeptRows& rows, size_t i, Kept how);
  // Each row Add counts is also added to `journal` (a shard's, for its merge); null: none.
  void set_journal(KeptRows* journal) { journal_ = journal; }
  // Medians, intervals, the diagnosis breakdown and the worst rows, into the summary.
  void Finish();

 private:
  void AddValue(size_t metric, double value);
  void CountFailure(const std::string& reason);
  // `question` and `reason` (the deciding metric's) are shown beside a row among the worst.
  void CountDiagnosis(analysis::Diagnosis d, const std::string& id,
                      const std::map<std::string, double>& scores, std::string question = {},
                      std::string reason = {});
  RunSummary& summary_;
  analysis::DiagnosisRule rule_;
  std::vector<std::vector<double>> values_;
  std::vector<int64_t> seen_;
  std::mt19937_64 rng_{7};
  std::map<analysis::Diagnosis, int64_t> diagnoses_;
  std::vector<std::pair<analysis::Diagnosis, DiagnosedRow>> failing_;
  KeptRows* journal_ = nullptr;
  // What Diagnose found of the row that Add counts next, for the journal.
  int pending_diagnosis_ = -1;
  KeptRows::Text pending_text_;
};

}  // namespace tala
