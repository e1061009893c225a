#include "io/readers/jsonl_reader.h"

#include "io/readers/row_parser.h"

namespace tala::io {

static_assert(BufferedInput::kPadding >= simdjson::SIMDJSON_PADDING,
              "lines are parsed in place, so the buffer must keep simdjson's padding");

JsonlReader::JsonlReader(std::string file, BufferedInput input, const ReaderOptions& options)
    : file_(std::move(file)), input_(std::move(input)), options_(options) {}

std::optional<Result<Sample>> JsonlReader::Next() {
  if (done_) return std::nullopt;
  for (;;) {
    std::string_view line;
    BufferedInput::LineStatus status = input_.NextLine(&line, options_.max_row_bytes);
    int64_t line_no = input_.line_number();
    switch (status) {
      case BufferedInput::LineStatus::kEnd:
        done_ = true;
        return std::nullopt;
      case BufferedInput::LineStatus::kError:
        done_ = true;
        return Result<Sample>(IoError("reading " + file_ + ": " + input_.error()));
      case BufferedInput::LineStatus::kTooLong:
        ++rows_seen_;
        return Result<Sample>(
            DataError({file_, line_no, 0, ""}, "row is longer than the " +
                                                   std::to_string(options_.max_row_bytes >> 20) +
                                                   " MiB limit; skipped"));
      case BufferedInput::LineStatus::kLine:
        break;
    }
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    ++rows_seen_;
    simdjson::dom::element row;
    auto error = parser_.parse(line.data(), line.size(), false).get(row);
    if (error) return Result<Sample>(JsonSyntaxError(error, file_, line_no));
    return ParseRow(row, {file_, line_no, rows_seen_});
  }
}

}  // namespace tala::io
