#include "io/readers/csv_reader.h"

#include <cctype>
#include <optional>
#include <set>
#include <string_view>

#include "io/readers/list_text.h"
#include "io/readers/row_parser.h"
#include "io/writers/json_text.h"

namespace tala::io {

namespace {

// Columns whose cells hold JSON (lists and objects), by every accepted name.
bool IsJsonColumn(const std::string& name) {
  static const std::set<std::string> kJson = {"retrieved_contexts",
                                              "contexts",
                                              "reference_contexts",
                                              "retrieved_context_ids",
                                              "reference_context_ids",
                                              "ground_truths",
                                              "rubrics",
                                              "reference_tool_calls",
                                              "reference_topics",
                                              "verdicts"};
  return kJson.count(name) > 0;
}

}  // namespace

CsvReader::CsvReader(std::string file, BufferedInput input, const ReaderOptions& options)
    : file_(std::move(file)), input_(std::move(input)), options_(options) {}

CsvReader::RecordStatus CsvReader::ReadRecord(std::vector<std::string>* fields,
                                              std::string* error) {
  fields->clear();
  if (input_.Peek() == EOF) return RecordStatus::kEnd;
  std::string cell;
  size_t record_bytes = 0;
  for (;;) {
    int c = input_.Get();
    if (c == '"' && cell.empty()) {
      // Quoted field: runs to the closing quote; "" is a literal quote.
      for (;;) {
        c = input_.Get();
        if (c == EOF) {
          *error = "a quoted field is not closed before the end of the file";
          return RecordStatus::kError;
        }
        if (c == '\n') ++line_;
        if (c == '"') {
          if (input_.Peek() == '"') {
            input_.Get();
          } else {
            break;
          }
        }
        cell.push_back(static_cast<char>(c));
        if (++record_bytes > options_.max_row_bytes) {
          *error = "row is longer than the row limit";
          return RecordStatus::kError;
        }
      }
      c = input_.Get();
      if (c != ',' && c != '\n' && c != '\r' && c != EOF) {
        *error = "unexpected text after a closing quote (a quote inside a field must be doubled)";
        return RecordStatus::kError;
      }
    }
    if (c == '\r' && input_.Peek() == '\n') c = input_.Get();
    if (c == ',' || c == '\n' || c == '\r' || c == EOF) {
      fields->push_back(std::move(cell));
      cell.clear();
      if (c == ',') continue;
      if (c != EOF) ++line_;
      return RecordStatus::kRecord;
    }
    cell.push_back(static_cast<char>(c));
    if (++record_bytes > options_.max_row_bytes) {
      *error = "row is longer than the row limit";
      return RecordStatus::kError;
    }
  }
}

Result<std::string> CsvReader::RecordToJson(const std::vector<std::string>& fields, int64_t line) {
  std::string json = "{";
  for (size_t col = 0; col < header_.size(); ++col) {
    const std::string& cell = fields[col];
    if (cell.empty()) continue;  // an empty cell is an absent field
    if (json.size() > 1) json += ',';
    AppendJsonString(json, header_[col]);
    json += ':';
    bool json_cell =
        IsJsonColumn(header_[col]) ||
        ((header_[col] == "user_input" || header_[col] == "question") && cell.front() == '[');
    if (!json_cell) {
      AppendJsonString(json, cell);
      continue;
    }
    simdjson::dom::element parsed;
    if (cell_parser_.parse(cell).get(parsed)) {
      // pandas writes list columns as Python's repr (['chunk a', 'chunk b']): the way most
      // Ragas users have a CSV (F4). A list of plain string literals is read as that list.
      if (auto list = PythonStringList(cell)) {
        json += *list;
        continue;
      }
      return DataError({file_, line, 0, header_[col]},
                       cell.front() == '['
                           ? "expected a JSON array in this CSV cell, got a list tala cannot "
                             "read (a Python list holding more than strings?); write list "
                             "columns with json.dumps, e.g. [\"chunk one\", \"chunk two\"]"
                           : "expected JSON in this CSV cell (list-valued columns hold a JSON "
                             "array, e.g. [\"chunk one\", \"chunk two\"]), got plain text");
    }
    json += cell;
  }
  json += '}';
  return json;
}

std::optional<Result<Sample>> CsvReader::Next() {
  if (done_) return std::nullopt;
  std::string error;
  if (header_.empty()) {
    RecordStatus st = ReadRecord(&header_, &error);
    if (st == RecordStatus::kEnd) {
      done_ = true;
      return std::nullopt;
    }
    std::set<std::string> unique(header_.begin(), header_.end());
    // pandas' to_csv() writes the frame's index as a first column with no name ("Unnamed: 0"
    // once read back and written again): the rows' labels, so their ids when the file has no
    // id column (N11: tala's row 23 was pandas' index 22, and the column came back as metadata
    // named "").
    if (st != RecordStatus::kError && !header_.empty() &&
        (header_[0].empty() || header_[0] == "Unnamed: 0") && !unique.count("id")) {
      unique.erase(header_[0]);
      header_[0] = "id";
      unique.insert("id");
    }
    if (st == RecordStatus::kError || unique.size() != header_.size()) {
      done_ = true;
      return Result<Sample>(DataError(
          {file_, 1, 0, ""}, st == RecordStatus::kError ? error : "the header repeats a column"));
    }
  }
  for (;;) {
    const int64_t start_line = line_;
    RecordStatus st = ReadRecord(&fields_, &error);
    if (st == RecordStatus::kEnd) {
      done_ = true;
      return std::nullopt;
    }
    if (st == RecordStatus::kError) {
      done_ = true;  // after a broken quote the record boundaries are unknown
      ++rows_seen_;
      return Result<Sample>(DataError({file_, start_line, 0, ""}, error));
    }
    if (fields_.size() == 1 && fields_[0].empty()) continue;  // blank line
    ++rows_seen_;
    if (fields_.size() != header_.size()) {
      return Result<Sample>(
          DataError({file_, start_line, 0, ""}, "row has " + std::to_string(fields_.size()) +
                                                    " fields but the header has " +
                                                    std::to_string(header_.size())));
    }
    for (size_t col = 0; col < fields_.size(); ++col) {
      if (!simdjson::validate_utf8(fields_[col])) {
        return Result<Sample>(DataError({file_, start_line, 0, header_[col]},
                                        "invalid UTF-8; re-save the file as UTF-8"));
      }
    }
    Result<std::string> json = RecordToJson(fields_, start_line);
    if (!json) return Result<Sample>(json.error());
    simdjson::dom::element row;
    auto err = parser_.parse(*json).get(row);
    if (err) return Result<Sample>(JsonSyntaxError(err, file_, start_line));
    return ParseRow(row, {file_, start_line, rows_seen_});
  }
}

}  // namespace tala::io
