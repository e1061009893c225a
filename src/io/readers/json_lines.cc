#include "io/readers/json_lines.h"

#include "io/readers/buffered_input.h"
#include "io/readers/row_parser.h"

namespace tala::io {

Status ForEachJsonLine(const std::string& path,
                       const std::function<Status(simdjson::dom::element, int64_t)>& fn,
                       JsonLinesTail* tail) {
  TALA_ASSIGN_OR_RETURN(BufferedInput input, BufferedInput::Open(path));
  simdjson::dom::parser parser;
  std::string_view line;
  JsonLinesTail local;
  JsonLinesTail& t = tail != nullptr ? *tail : local;
  t = {};
  for (;;) {
    const uint64_t before = input.offset();
    auto st = input.NextLine(&line, 64u << 20);
    if (st == BufferedInput::LineStatus::kEnd) return OkStatus();
    if (st == BufferedInput::LineStatus::kError) {
      return IoError("reading " + path + (input.error().empty() ? "" : ": " + input.error()));
    }
    const int64_t line_no = input.line_number();
    // Only the last line of a file can lack its newline.
    const bool unterminated = input.offset() - before == line.size();
    if (st == BufferedInput::LineStatus::kTooLong) {
      return DataError({path, line_no, 0, ""}, "line longer than 64 MiB");
    }
    if (line.find_first_not_of(" \t") == std::string_view::npos) {
      if (!unterminated) t.complete_bytes = input.offset();
      continue;
    }
    simdjson::dom::element root;
    if (auto err = parser.parse(line.data(), line.size(), false).get(root)) {
      if (unterminated && input.Peek() == EOF) {
        t.cut_off_line = line_no;
        return OkStatus();
      }
      return JsonSyntaxError(err, path, line_no);
    }
    t.complete_bytes = input.offset();
    t.needs_newline = unterminated;
    TALA_RETURN_IF_ERROR(fn(root, line_no));
  }
}

}  // namespace tala::io
