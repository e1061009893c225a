#include "io/readers/json_lines.h"

#include "io/readers/buffered_input.h"
#include "io/readers/row_parser.h"

namespace tala::io {

Status ForEachJsonLine(const std::string& path,
                       const std::function<Status(simdjson::dom::element, int64_t)>& fn) {
  TALA_ASSIGN_OR_RETURN(BufferedInput input, BufferedInput::Open(path));
  simdjson::dom::parser parser;
  std::string_view line;
  for (;;) {
    auto st = input.NextLine(&line, 64u << 20);
    if (st == BufferedInput::LineStatus::kEnd) return OkStatus();
    if (st == BufferedInput::LineStatus::kError) return IoError("reading " + path);
    const int64_t line_no = input.line_number();
    if (st == BufferedInput::LineStatus::kTooLong) {
      return DataError({path, line_no, 0, ""}, "line longer than 64 MiB");
    }
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    simdjson::dom::element root;
    if (auto err = parser.parse(line.data(), line.size(), false).get(root)) {
      return JsonSyntaxError(err, path, line_no);
    }
    TALA_RETURN_IF_ERROR(fn(root, line_no));
  }
}

}  // namespace tala::io
