#pragma once
// Line-by-line reading of a JSON Lines file that tala itself reads back (results files,
// labelled files for calibrate): blank lines skipped, each line parsed in place by simdjson.

#include <simdjson.h>

#include <functional>
#include <string>

#include "tala/status.h"

namespace tala::io {

// Calls fn(row, line_number) for each non-blank line and stops at the first non-OK status it
// returns. kIoError when the file cannot be read; kDataError (file:line) for a line that is not
// JSON or is longer than 64 MiB.
Status ForEachJsonLine(const std::string& path,
                       const std::function<Status(simdjson::dom::element, int64_t)>& fn);

}  // namespace tala::io
