#pragma once
// Results file: one JSON object per scored row, {"id", "scores", "reasons", "metadata"},
// appended row by row, each row in one write, so a crash or Ctrl-C loses nothing already
// computed. A write that fails part-way (a full disk) is cut back to the last whole row, so the
// file always ends on a complete line and --resume continues from it. The file is locked
// (fs/file_lock.h) while it is written: one writer per results file. Undefined scores are null
// with their reason; NaN is never written. Not thread-safe.

#include <cstdint>
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
  // "-" writes to stdout. kIoError when the file cannot be opened; kInvalidArgument when another
  // process holds it. kAppend continues after the first `keep_bytes` bytes (the file's whole
  // lines, JsonLinesTail::complete_bytes; -1: all of it), adding a newline first when
  // `needs_newline`.
  static Result<ResultsJsonlWriter> Open(const std::string& path, Mode mode,
                                         int64_t keep_bytes = -1, bool needs_newline = false);
  ResultsJsonlWriter(ResultsJsonlWriter&& other) noexcept;
  ResultsJsonlWriter& operator=(ResultsJsonlWriter&&) = delete;
  ~ResultsJsonlWriter();

  // Writes and flushes one row; kIoError on a short write (disk full).
  Status Write(const RowResult& row);
  // Writes and flushes one line that is already JSON (a manifest or run record).
  Status WriteLine(const std::string& json);
  const std::string& path() const { return path_; }
  // Bytes of whole lines in the file (files only).
  int64_t size() const { return size_; }

 private:
  Status Raw(std::string_view text);  // all of `text`, or the file cut back to size_
  ResultsJsonlWriter(int fd, bool owned, std::string path, int64_t size);
  int fd_;
  bool owned_;
  bool regular_ = false;  // a regular file: a failed write is cut back (not a pipe or device)
  std::string path_;
  std::string line_;
  int64_t size_ = 0;  // bytes of whole lines in the file (files only)
};

}  // namespace tala::io
