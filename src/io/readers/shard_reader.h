#pragma once
// ShardReader: the rows of one shard out of a reader over the whole file (shards by id hash,
// and by range for formats that cannot be split by bytes). Not thread-safe.

#include <memory>

#include "io/readers/dataset_reader.h"

namespace tala::io {

class ShardReader : public DatasetReader {
 public:
  // `total_rows`: the file's row count, for kRange.
  ShardReader(std::unique_ptr<DatasetReader> all, ShardSpec shard, int64_t total_rows);
  std::optional<Result<Sample>> Next() override;
  size_t bytes_read() const override { return all_->bytes_read(); }
  int64_t position() const override { return position_; }

 private:
  bool Mine(const Result<Sample>& row, int64_t position) const;
  std::unique_ptr<DatasetReader> all_;
  ShardSpec shard_;
  int64_t total_rows_;
  int64_t position_ = 0;
};

}  // namespace tala::io
