#include "io/readers/json_array_reader.h"

#include "io/readers/row_parser.h"

namespace tala::io {

JsonArrayReader::JsonArrayReader(std::string file, BufferedInput input,
                                 const ReaderOptions& options)
    : file_(std::move(file)), input_(std::move(input)), options_(options) {}

int JsonArrayReader::SkipSpace() {
  for (;;) {
    int c = input_.Get();
    if (c == '\n') ++line_;
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return c;
  }
}

Result<Sample> JsonArrayReader::Fatal(std::string what) {
  done_ = true;
  return DataError({file_, line_, 0, ""}, std::move(what));
}

// After the closing ']' only white space may follow: text there is a broken file, not rows
// to ignore (F19).
std::optional<Result<Sample>> JsonArrayReader::End() {
  int c = SkipSpace();
  if (c != EOF) return Fatal("text after the closing ']' of the JSON array");
  done_ = true;
  return std::nullopt;
}

std::optional<Result<Sample>> JsonArrayReader::Next() {
  if (done_) return std::nullopt;
  if (!started_) {
    started_ = true;
    int c = SkipSpace();
    if (c == EOF) {
      done_ = true;
      return std::nullopt;
    }
    if (c != '[')
      return Fatal("expected a JSON array of rows ('['); for one row a line use .jsonl");
    c = SkipSpace();
    if (c == ']') return End();
    element_.assign(1, static_cast<char>(c));
  } else {
    int c = SkipSpace();
    if (c == ']') return End();
    if (c != ',') {
      return Fatal(c == EOF ? "the JSON array is not closed (truncated file?)"
                            : "expected ',' or ']' between rows");
    }
    c = SkipSpace();
    if (c == EOF) return Fatal("the JSON array is not closed (truncated file?)");
    element_.assign(1, static_cast<char>(c));
  }
  const int64_t start_line = line_;
  // Cut one element: depth counts brackets outside strings.
  int depth = (element_[0] == '{' || element_[0] == '[') ? 1 : 0;
  bool in_string = element_[0] == '"';
  bool escaped = false;
  while (depth > 0 || in_string) {
    int c = input_.Get();
    if (c == EOF) return Fatal("the JSON array ends inside a row (truncated file?)");
    if (c == '\n') ++line_;
    element_.push_back(static_cast<char>(c));
    if (element_.size() > options_.max_row_bytes) return Fatal("row is longer than the row limit");
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  // A scalar element (not an object) runs to the next separator; the row parser rejects it.
  while (element_.size() == 1 && element_[0] != '{' && element_[0] != '[' && input_.Peek() != ',' &&
         input_.Peek() != ']' && input_.Peek() != EOF) {
    element_.push_back(static_cast<char>(input_.Get()));
  }
  ++rows_seen_;
  simdjson::dom::element row;
  auto error = parser_.parse(element_).get(row);
  if (error) return Result<Sample>(JsonSyntaxError(error, file_, start_line));
  return ParseRow(row, {file_, start_line, rows_seen_});
}

}  // namespace tala::io
