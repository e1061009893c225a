#include "io/readers/jsonl_reader.h"

#include "io/readers/row_parser.h"

namespace tala::io {

static_assert(BufferedInput::kPadding >= simdjson::SIMDJSON_PADDING,
              "lines are parsed in place, so the buffer must keep simdjson's padding");

namespace {
bool Blank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}
}  // namespace

Status CountLinesBefore(const std::string& path, uint64_t offset, size_t max_row_bytes,
                        int64_t* lines, int64_t* rows) {
  *lines = *rows = 0;
  TALA_ASSIGN_OR_RETURN(BufferedInput input, BufferedInput::Open(path));
  std::string_view line;
  while (input.offset() < offset) {
    BufferedInput::LineStatus status = input.NextLine(&line, max_row_bytes);
    if (status == BufferedInput::LineStatus::kEnd) break;
    if (status == BufferedInput::LineStatus::kError) {
      return IoError("reading " + path + ": " + input.error());
    }
    ++*lines;
    if (status == BufferedInput::LineStatus::kTooLong || !Blank(line)) ++*rows;
  }
  return OkStatus();
}

JsonlReader::JsonlReader(std::string file, BufferedInput input, const ReaderOptions& options)
    : file_(std::move(file)), input_(std::move(input)), options_(options), counted_(true) {}

JsonlReader::JsonlReader(std::string file, std::string path, BufferedInput input,
                         const ReaderOptions& options, ByteRange range)
    : file_(std::move(file)),
      input_(std::move(input)),
      options_(options),
      path_(std::move(path)),
      range_(range),
      counted_(range.begin == 0) {
  if (range.begin > 0) {
    // Opened one byte early: this first "line" is the rest of a line that starts before the
    // range (the previous shard's), or just the newline that ends one.
    std::string_view skipped;
    input_.NextLine(&skipped, options_.max_row_bytes);
  }
}

Status JsonlReader::CountBefore() {
  if (counted_) return OkStatus();
  counted_ = true;
  return CountLinesBefore(path_, range_->begin, options_.max_row_bytes, &lines_before_,
                          &rows_before_);
}

int64_t JsonlReader::FileLine(int64_t local_line) const {
  // Inside a range the first local line is the one skipped in the constructor.
  return range_ && range_->begin > 0 ? lines_before_ + local_line - 1 : local_line;
}

Result<Sample> JsonlReader::Parse(simdjson::dom::element row, int64_t local_line) {
  // Without an id the row's number in the whole file is its id.
  simdjson::dom::element id;
  if (!counted_ && row["id"].get(id)) TALA_RETURN_IF_ERROR(CountBefore());
  bool exact = counted_;
  Result<Sample> sample = ParseRow(row, {file_, FileLine(local_line), rows_before_ + rows_seen_});
  if (sample || exact) return sample;
  // An error names the line in the whole file.
  TALA_RETURN_IF_ERROR(CountBefore());
  return ParseRow(row, {file_, FileLine(local_line), rows_before_ + rows_seen_});
}

std::optional<Result<Sample>> JsonlReader::Next() {
  if (done_) return std::nullopt;
  for (;;) {
    if (range_ && input_.offset() >= range_->end) {
      done_ = true;
      return std::nullopt;
    }
    std::string_view line;
    BufferedInput::LineStatus status = input_.NextLine(&line, options_.max_row_bytes);
    int64_t local_line = input_.line_number();
    switch (status) {
      case BufferedInput::LineStatus::kEnd:
        done_ = true;
        return std::nullopt;
      case BufferedInput::LineStatus::kError:
        done_ = true;
        return Result<Sample>(IoError("reading " + file_ + ": " + input_.error()));
      case BufferedInput::LineStatus::kTooLong: {
        ++rows_seen_;
        if (Status s = CountBefore(); !s.ok()) return Result<Sample>(s);
        return Result<Sample>(DataError({file_, FileLine(local_line), 0, ""},
                                        "row is longer than the " +
                                            std::to_string(options_.max_row_bytes >> 20) +
                                            " MiB limit; skipped"));
      }
      case BufferedInput::LineStatus::kLine:
        break;
    }
    if (Blank(line)) continue;
    ++rows_seen_;
    simdjson::dom::element row;
    auto error = parser_.parse(line.data(), line.size(), false).get(row);
    if (error) {
      if (Status s = CountBefore(); !s.ok()) return Result<Sample>(s);
      return Result<Sample>(JsonSyntaxError(error, file_, FileLine(local_line)));
    }
    return Parse(row, local_line);
  }
}

}  // namespace tala::io
