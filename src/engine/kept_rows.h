#pragma once
// KeptRows: rows as a run tally counts them, stored flat: each metric's value or why it has
// none, the row's diagnosis, whether the judge failed on it, and text only for the rows that
// failed or are blamed on a stage (the summary shows their question and reason). A shard keeps
// its rows so in a binary file beside its results; the merge reads that instead of parsing
// every row again, and counts the rows in the dataset's order (RunTally::AddKept).
// Not thread-safe.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/readers/results_reader.h"
#include "tala/run_summary.h"
#include "tala/status.h"

namespace tala {

class KeptRows {
 public:
  enum class Cell : uint8_t { kScored, kFailed, kUndefined };
  struct Score {
    Cell cell = Cell::kUndefined;
    double value = 0;  // when kScored
  };
  struct Text {
    std::string id, question, diagnosis_reason, failure_reason;
  };

  explicit KeptRows(std::vector<std::string> keys);  // the run's metrics, in order
  // One row: a Score per key, in order; its diagnosis's position in analysis::AllDiagnoses()
  // (-1: none); whether the judge failed on it; and its text, kept when it failed or its
  // diagnosis blames a stage.
  void Add(const std::vector<Score>& scores, int diagnosis, bool failed, Text text);
  // A row as a results file holds it.
  void Add(const io::ResultRow& row);

  size_t size() const { return diagnosis_.size(); }
  const std::vector<std::string>& keys() const { return keys_; }
  Cell cell(size_t row, size_t metric) const { return cells_[row * keys_.size() + metric]; }
  double value(size_t row, size_t metric) const { return values_[row * keys_.size() + metric]; }
  int diagnosis(size_t row) const { return diagnosis_[row]; }
  bool failed(size_t row) const { return failed_[row] != 0; }
  const Text* text(size_t row) const {
    return text_[row] == kNoText ? nullptr : &texts_[text_[row]];
  }

  // The binary form, and back. Decode: kDataError naming `path` when the bytes are not rows of
  // these keys (another version, another machine's byte order, a cut file).
  std::string Encode() const;
  static Result<KeptRows> Decode(std::string_view bytes, std::vector<std::string> keys,
                                 const std::string& path);

 private:
  static constexpr uint32_t kNoText = UINT32_MAX;
  std::vector<std::string> keys_;
  std::vector<double> values_;  // size() x keys_, row after row
  std::vector<Cell> cells_;
  std::vector<int8_t> diagnosis_;
  std::vector<uint8_t> failed_;
  std::vector<uint32_t> text_;  // into texts_, or kNoText
  std::vector<Text> texts_;
};

// The run's metric keys, in order: what a KeptRows is made for.
std::vector<std::string> MetricKeys(const std::vector<MetricSummary>& metrics);

// The rows of this diagnosis (a position in analysis::AllDiagnoses(), -1: none) are blamed on a
// stage: the summary lists the worst of them with their question and reason.
bool BlamesAStage(int diagnosis);

}  // namespace tala
