#pragma once
// DatasetReader: streams Samples from a dataset file (JSON Lines, a JSON array, or CSV; "-" is
// stdin) in constant memory. A bad row is reported and reading goes on with the next one; only
// an I/O failure or a broken JSON array ends the stream early. Not thread-safe.

#include <memory>
#include <optional>
#include <string>

#include "tala/sample.h"
#include "tala/shard.h"
#include "tala/status.h"

namespace tala::io {

enum class DatasetFormat { kAuto, kJsonl, kJsonArray, kCsv };

// "jsonl", "json", "csv" or "auto"; kInvalidArgument otherwise.
Result<DatasetFormat> ParseDatasetFormat(const std::string& name);
// From the extension (.jsonl/.ndjson, .json, .csv); "-" and unknown extensions mean JSON Lines.
DatasetFormat FormatFromPath(const std::string& path);

struct ReaderOptions {
  DatasetFormat format = DatasetFormat::kAuto;
  size_t max_row_bytes = 64u << 20;  // a row longer than this is rejected, not loaded
};

class DatasetReader {
 public:
  virtual ~DatasetReader() = default;

  // The next row: a Sample, or a kDataError for that row (call again for the next one), or
  // std::nullopt at the end. After a fatal error (kIoError) the next call returns std::nullopt.
  virtual std::optional<Result<Sample>> Next() = 0;

  // A file with no rows at all is an error the caller reports at the end.
  int64_t rows_seen() const { return rows_seen_; }
  virtual size_t bytes_read() const = 0;
  // The 1-based number in the whole file of the row Next() last returned (a shard's readers
  // skip rows; a byte-range reader counts within its range).
  virtual int64_t position() const { return rows_seen_; }

 protected:
  int64_t rows_seen_ = 0;
};

// kNotFound / kIoError when the file cannot be opened.
Result<std::unique_ptr<DatasetReader>> OpenDataset(const std::string& path,
                                                   const ReaderOptions& options = {});

// Only the rows of one shard (see include/tala/shard.h); the whole file when !shard.active().
// A JSON Lines file split by range is read from its shard's byte range only; JSON arrays and
// CSV files split by range are counted first. Bad rows belong to a shard too: by position.
Result<std::unique_ptr<DatasetReader>> OpenDatasetShard(const std::string& path,
                                                        const ReaderOptions& options,
                                                        const ShardSpec& shard);

}  // namespace tala::io
