#pragma once
// Line-by-line reading of a JSON Lines file that tala itself reads back (results files,
// labelled files for calibrate): blank lines skipped, each line parsed in place by simdjson.

#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <string>

#include "tala/status.h"

namespace tala::io {

// How a file ends. A process killed mid-write, or a full disk, can leave a last line without
// its newline; such a line that is not valid JSON is dropped (never an error), and an appender
// must cut the file back to `complete_bytes` before it writes.
struct JsonLinesTail {
  uint64_t complete_bytes = 0;  // the file up to and including its last whole line
  int64_t cut_off_line = 0;     // the dropped unterminated last line, 0 when none
  bool needs_newline = false;   // the last line is valid JSON but has no newline
};

// Calls fn(row, line_number) for each non-blank line and stops at the first non-OK status it
// returns. kIoError when the file cannot be read; kDataError (file:line) for a line that is not
// JSON or is longer than 64 MiB, except a cut-off last line (see JsonLinesTail).
Status ForEachJsonLine(const std::string& path,
                       const std::function<Status(simdjson::dom::element, int64_t)>& fn,
                       JsonLinesTail* tail = nullptr);

}  // namespace tala::io
