#pragma once
// Results file: one JSON object per scored row, {"id", "scores", "reasons", "metadata"},
// appended and flushed row by row so a crash or Ctrl-C loses nothing already computed.
// Undefined scores are null with their reason; NaN is never written. Not thread-safe.

#include <cstdio>
#include <string>
#include <vector>

#include "tala/metric.h"
#include "tala/sample.h"
#include "tala/status.h"

namespace tala::io {

struct RowScore {
  std::string_view key;  // the metric's results key (the Metric outlives the row)
  MetricValue value;
  bool failed = false;  // undefined because the judge failed, not because of the data
};

struct RowResult {
  const Sample& sample;
  std::vector<RowScore> scores;
  Status status;          // a judge failure for the whole row; scores are then all null
  std::string diagnosis;  // which stage failed ("retriever miss"); empty: not written
  const Verdicts* verdicts = nullptr;  // the judge's verdicts, written for the drill-down
};

// Builds the JSON line for one row (without the newline).
std::string FormatResultLine(const RowResult& row);

class ResultsJsonlWriter {
 public:
  enum class Mode { kTruncate, kAppend };
  // "-" writes to stdout. kIoError when the file cannot be opened.
  static Result<ResultsJsonlWriter> Open(const std::string& path, Mode mode);
  ResultsJsonlWriter(ResultsJsonlWriter&& other) noexcept;
  ResultsJsonlWriter& operator=(ResultsJsonlWriter&&) = delete;
  ~ResultsJsonlWriter();

  // Writes and flushes one row; kIoError on a short write (disk full).
  Status Write(const RowResult& row);
  // Writes and flushes one line that is already JSON (a manifest or run record).
  Status WriteLine(const std::string& json);
  const std::string& path() const { return path_; }

 private:
  ResultsJsonlWriter(std::FILE* f, bool owned, std::string path);
  std::FILE* file_;
  bool owned_;
  std::string path_;
  std::string line_;
};

}  // namespace tala::io
