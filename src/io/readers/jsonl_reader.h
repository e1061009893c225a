#pragma once
// JSON Lines: one row object a line; blank lines are skipped; each line is parsed in place.

#include <simdjson.h>

#include "io/readers/buffered_input.h"
#include "io/readers/dataset_reader.h"

namespace tala::io {

class JsonlReader : public DatasetReader {
 public:
  JsonlReader(std::string file, BufferedInput input, const ReaderOptions& options);
  std::optional<Result<Sample>> Next() override;
  size_t bytes_read() const override { return input_.bytes_read(); }

 private:
  std::string file_;
  BufferedInput input_;
  ReaderOptions options_;
  simdjson::dom::parser parser_;
  bool done_ = false;
};

}  // namespace tala::io
