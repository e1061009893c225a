#pragma once
// The JSON of the history: runs, trends, and a captured run as `tala history add` sends it to a
// serve store. Written by hand (io/writers/json_text.h), read with simdjson.

#include <string>
#include <string_view>

#include "history/run_capture.h"
#include "tala/history.h"

namespace tala::history {

// A data error without a place in a file (a stored run, a request body).
inline Status BadData(std::string message) {
  return Status(ErrorCode::kDataError, std::move(message));
}

void AppendRunJson(std::string& out, const HistoryRun& run);
// kDataError naming `what` and the field.
Result<HistoryRun> ParseRunJson(std::string_view json, const std::string& what);

std::string CaptureJson(const RunCapture& capture);
Result<RunCapture> ParseCaptureJson(std::string_view json, const std::string& what);

}  // namespace tala::history
