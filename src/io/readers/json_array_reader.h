#pragma once
// A JSON array of row objects, streamed: a small scanner cuts the array into elements (tracking
// strings, nesting and lines) and each element is parsed alone, so memory is bounded by one row.

#include <simdjson.h>

#include "io/readers/buffered_input.h"
#include "io/readers/dataset_reader.h"

namespace tala::io {

class JsonArrayReader : public DatasetReader {
 public:
  JsonArrayReader(std::string file, BufferedInput input, const ReaderOptions& options);
  std::optional<Result<Sample>> Next() override;
  size_t bytes_read() const override { return input_.bytes_read(); }

 private:
  std::optional<Result<Sample>> End();
  int SkipSpace();  // next non-space byte (consumed), counting lines
  Result<Sample> Fatal(std::string what);

  std::string file_;
  BufferedInput input_;
  ReaderOptions options_;
  simdjson::dom::parser parser_;
  std::string element_;
  int64_t line_ = 1;
  bool started_ = false;
  bool done_ = false;
};

}  // namespace tala::io
