#pragma once
// The files of one shard (include/tala/shard.h) as Evaluate writes them: the results, written to
// PATH.partial-PID and renamed to PATH once every row is in, then the shard's state
// (PATH.shard.json), written the same way. Until both exist the shard is not done; a failed or
// killed shard leaves neither, so running it again duplicates nothing. Before the state, its
// rows as the tally counted them (PATH.shard.rows: KeptRows and each row's line length), so
// the merge copies the rows' bytes without parsing them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/kept_rows.h"
#include "tala/evaluate.h"

namespace tala {

// kInvalidArgument for the options that are about a whole run (resume, repeats, labels,
// stdin, stdout, dry run) when `o` is a shard.
Status CheckShardOptions(const EvalOptions& o);

std::string ShardRowsPath(const std::string& results_path);

// A results file's size and modification time (in nanoseconds), as a shard's state records them
// when it finishes and a merge compares them; nullopt when the file cannot be read.
struct FileVersion {
  uint64_t bytes = 0;
  int64_t modified_ns = 0;
};
std::optional<FileVersion> FileVersionOf(const std::string& path);

// A shard's rows file: what its tally counted of each row, and the length in bytes of each
// row's line in the results file, in the file's order.
struct ShardRows {
  KeptRows kept;
  std::vector<uint32_t> line_bytes;
};
// kNotFound when there is none (a shard of an older tala: the merge parses its rows); kDataError
// naming the file when its SHA-256 is not `sha256` (the state's) or it is not rows of these
// metrics.
Result<ShardRows> ReadShardRows(const std::string& path, const std::string& sha256,
                                std::vector<std::string> keys);

class ShardFiles {
 public:
  explicit ShardFiles(const EvalOptions& o) : o_(o) {}
  ~ShardFiles();
  ShardFiles(const ShardFiles&) = delete;
  ShardFiles& operator=(const ShardFiles&) = delete;
  // An older finished shard at the same path no longer stands for this run: removed first,
  // before the rows are checked, so a shard that fails leaves nothing behind.
  static void ClearOlder(const EvalOptions& o);
  // `metrics`: the run's, in order.
  void Begin(const std::vector<MetricSummary>& metrics);
  // Where the results are written while the run lasts.
  const std::string& writing() const { return scratch_.empty() ? o_.out : scratch_; }
  // Each row as the tally counts it, and where its line lies in the results file: `begin`, the
  // byte where the first row starts, and each row's line length, in order.
  KeptRows& rows() { return *rows_; }
  void RowsBegin(uint64_t begin) { rows_begin_ = begin; }
  void RowWritten(uint64_t bytes) { line_bytes_.push_back(static_cast<uint32_t>(bytes)); }
  // Writes the rows file and the state and moves them and the results into place. `dataset` is
  // the file read (its size is recorded), `positions` each row's number in it (hash shards).
  Status Finish(const RunSummary& summary, const std::string& dataset,
                const std::string& dataset_sha256, const std::vector<int64_t>& positions);

 private:
  const EvalOptions& o_;
  std::string scratch_;
  std::optional<KeptRows> rows_;
  uint64_t rows_begin_ = 0;
  std::vector<uint32_t> line_bytes_;
};

}  // namespace tala
