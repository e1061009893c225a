#pragma once
// CSV (RFC 4180): a header row, then one row a record; quoted fields may hold commas, doubled
// quotes and newlines; CRLF accepted. List-valued columns (retrieved_contexts, ...) hold a JSON
// array. Each record becomes a JSON object and goes through the same row parser as JSON input.

#include <simdjson.h>

#include <vector>

#include "io/readers/buffered_input.h"
#include "io/readers/dataset_reader.h"

namespace tala::io {

class CsvReader : public DatasetReader {
 public:
  CsvReader(std::string file, BufferedInput input, const ReaderOptions& options);
  std::optional<Result<Sample>> Next() override;
  size_t bytes_read() const override { return input_.bytes_read(); }

 private:
  enum class RecordStatus { kRecord, kEnd, kError };
  RecordStatus ReadRecord(std::vector<std::string>* fields, std::string* error);
  Result<std::string> RecordToJson(const std::vector<std::string>& fields, int64_t line);

  std::string file_;
  BufferedInput input_;
  ReaderOptions options_;
  simdjson::dom::parser parser_;
  simdjson::dom::parser cell_parser_;
  std::vector<std::string> header_;
  std::vector<std::string> fields_;
  int64_t line_ = 1;
  bool done_ = false;
};

}  // namespace tala::io
