#pragma once
// The state a shard leaves beside its results file (RESULTS.shard.json; see
// include/tala/shard.h): what a merge needs that the rows do not carry. One JSON object:
// {"tala_shard": 1, "index", "count", "by", "dataset", "dataset_bytes", "judge", "rows_read",
// "rows_skipped", "rows_scored", "rows_failed", "errors": [{file, line, column, field,
// message}], "metrics": [{key, better, scored, undefined, failed, sum}], "notes", "warnings",
// "accounting": a run record or null, "positions": the row numbers of a hash shard's rows, as
// differences from the previous one, "rows": {"begin", "bytes", "file_bytes",
// "file_modified_ns", "kept_sha256"}: where the rows' lines lie, the results file as it was,
// the rows file's digest (absent in older states)}. Pure formatting
// and parsing.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tala/run_summary.h"
#include "tala/shard.h"

namespace tala::io {

struct MetricTotals {
  std::string key;
  Direction direction = Direction::kHigherIsBetter;
  int64_t scored = 0, undefined = 0, failed = 0;
  double sum = 0;
};

struct ShardState {
  ShardSpec shard;
  std::string dataset;
  uint64_t dataset_bytes = 0;
  std::string dataset_sha256;  // the dataset's content, so an edit between shards is caught
  std::string diagnosis;       // the diagnosis thresholds, as DiagnosisSetting() writes them
  std::string judge;
  int64_t rows_read = 0, rows_skipped = 0, rows_scored = 0, rows_failed = 0;
  std::vector<Status> errors;  // the shard's first data errors
  std::vector<MetricTotals> metrics;
  std::vector<std::string> notes, warnings;
  std::optional<RunAccounting> accounting;  // when a model was called
  std::vector<int64_t> positions;           // kHash: each row's number in the dataset
  // For a merge that copies the rows without parsing them: where they lie in the results file
  // (bytes [rows_begin, rows_begin + rows_bytes)), the file's size and modification time when
  // the shard finished, and the SHA-256 of the rows file beside the state
  // (engine/shard_files.h). Empty kept_sha256: not recorded (an older tala's shard).
  uint64_t rows_begin = 0, rows_bytes = 0, file_bytes = 0;
  int64_t file_modified_ns = 0;
  std::string kept_sha256;
};

ShardState ShardStateOf(const RunSummary& summary, const ShardSpec& shard,
                        const std::string& dataset, uint64_t dataset_bytes);
std::string FormatShardState(const ShardState& state);
// kNotFound when the file is missing; kDataError naming the file and field when it is not a
// shard state.
Result<ShardState> ReadShardState(const std::string& path);

}  // namespace tala::io
