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

// One turn of a conversation row, as its results line keeps it (engine/conversation_turns.h).
struct TurnResult {
  int turn = 0;                  // 1-based, among the conversation's ai messages
  int message = 0;               // 0-based position of its ai message in user_input
  std::string question;          // the turn's question as it was read
  std::string response;          // the ai message
  std::vector<RowScore> scores;  // by the metric's name on one turn ("faithfulness")
  std::string diagnosis;         // which stage failed on this turn (set by the tally)
};

struct RowResult {
  const Sample& sample;
  std::vector<RowScore> scores;
  Status status;          // a judge failure for the whole row; scores are then all null
  std::string diagnosis;  // which stage failed ("retriever miss"); empty: not written
  const Verdicts* verdicts = nullptr;  // the judge's verdicts, written for the drill-down
  // A conversation scored turn by turn: each turn's scores, and the first turn that failed
  // (1-based; 0: none). The tally fills the turns' diagnoses.
  std::vector<TurnResult>* turns = nullptr;
  int first_failing_turn = 0;
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
