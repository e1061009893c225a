#pragma once
// JSON Lines: one row object a line; blank lines are skipped; each line is parsed in place.
// A reader can be limited to the lines that start in a byte range (a --shard by range): it then
// reads only that part of the file, and counts the lines and rows before it (one quick pass
// over the earlier bytes) only when it needs them: for an error's line number, or for the
// default id of a row without one.

#include <simdjson.h>

#include <optional>

#include "io/readers/buffered_input.h"
#include "io/readers/dataset_reader.h"

namespace tala::io {

struct ByteRange {
  uint64_t begin = 0, end = 0;  // the lines whose first byte is in [begin, end)
};

class JsonlReader : public DatasetReader {
 public:
  JsonlReader(std::string file, BufferedInput input, const ReaderOptions& options);
  // `input` opened at range.begin - 1 (or 0 when begin is 0); `path` is reopened to count the
  // lines before the range when needed.
  JsonlReader(std::string file, std::string path, BufferedInput input, const ReaderOptions& options,
              ByteRange range);
  std::optional<Result<Sample>> Next() override;
  size_t bytes_read() const override { return input_.bytes_read(); }

 private:
  // The lines and rows that start before the range, counted once.
  Status CountBefore();
  int64_t FileLine(int64_t local_line) const;
  Result<Sample> Parse(simdjson::dom::element row, int64_t local_line);

  std::string file_;
  BufferedInput input_;
  ReaderOptions options_;
  simdjson::dom::parser parser_;
  bool done_ = false;
  std::string path_;
  std::optional<ByteRange> range_;
  bool counted_ = false;
  int64_t lines_before_ = 0, rows_before_ = 0;
};

// How many lines, and how many rows (lines that are not blank), start before byte `offset` of
// `path`, with the same rules JsonlReader reads by.
Status CountLinesBefore(const std::string& path, uint64_t offset, size_t max_row_bytes,
                        int64_t* lines, int64_t* rows);

}  // namespace tala::io
