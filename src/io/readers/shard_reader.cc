#include "io/readers/shard_reader.h"

namespace tala::io {

ShardReader::ShardReader(std::unique_ptr<DatasetReader> all, ShardSpec shard, int64_t total_rows)
    : all_(std::move(all)), shard_(shard), total_rows_(total_rows) {}

bool ShardReader::Mine(const Result<Sample>& row, int64_t position) const {
  const int64_t n = shard_.count;
  if (shard_.by == ShardBy::kHash) {
    // A bad row may have no id to hash: it goes by its position.
    if (row) return ShardOfId(row->id, shard_.count) == shard_.index;
    return (position - 1) % n == shard_.index;
  }
  return total_rows_ > 0 && (position - 1) * n / total_rows_ == shard_.index;
}

std::optional<Result<Sample>> ShardReader::Next() {
  while (auto row = all_->Next()) {
    // An I/O error ends every shard's reading.
    if (!*row && row->error().code() != ErrorCode::kDataError) return row;
    int64_t position = all_->position();
    if (!Mine(*row, position)) continue;
    ++rows_seen_;
    position_ = position;
    return row;
  }
  return std::nullopt;
}

}  // namespace tala::io
