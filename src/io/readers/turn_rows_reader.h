#pragma once
// A conversation given as one row per turn: rows with a `conversation_id` and a `turn` (and the
// turn's `user_input` as a string, its `response`, `retrieved_contexts`, `retrieved_context_ids`,
// `reference`) are joined, in file order, into one conversation row whose user_input is the list
// of messages, each answer carrying its turn's passages (docs/datasets.md, Conversations). The
// conversation's id is its conversation_id; its line the first turn's. A conversation's rows must
// be consecutive and their turns increasing: otherwise a data error names the line and field.
// Rows without both fields pass through unchanged. Not thread-safe.

#include <memory>
#include <optional>
#include <set>
#include <string>

#include "io/readers/dataset_reader.h"

namespace tala::io {

class TurnRowsReader : public DatasetReader {
 public:
  TurnRowsReader(std::unique_ptr<DatasetReader> inner, std::string file)
      : inner_(std::move(inner)), file_(std::move(file)) {}
  std::optional<Result<Sample>> Next() override;
  size_t bytes_read() const override { return inner_->bytes_read(); }
  int64_t position() const override { return inner_->position(); }

 private:
  std::optional<Result<Sample>> Read();  // the inner reader's next row, or the one held back
  std::unique_ptr<DatasetReader> inner_;
  std::string file_;
  std::optional<Result<Sample>> held_;  // read ahead: the row after a conversation's last turn
  std::set<std::string> finished_;      // conversation ids already joined and returned
};

}  // namespace tala::io
