#include "tala/status.h"

namespace tala {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return "ok";
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kDataError:
      return "data error";
    case ErrorCode::kNotFound:
      return "not found";
    case ErrorCode::kIoError:
      return "i/o error";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kRateLimited:
      return "rate limited";
    case ErrorCode::kDeadlineExceeded:
      return "deadline exceeded";
    case ErrorCode::kBadReply:
      return "bad reply";
    case ErrorCode::kCancelled:
      return "cancelled";
    case ErrorCode::kInternal:
      return "internal error";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  std::string out;
  if (!where_.file.empty()) {
    out += where_.file;
    if (where_.line > 0) out += ":" + std::to_string(where_.line);
    if (where_.column > 0) out += ":" + std::to_string(where_.column);
    out += ": ";
  } else if (code_ != ErrorCode::kDataError) {
    out += std::string(ErrorCodeName(code_)) + ": ";
  }
  if (!where_.field.empty()) out += "field \"" + where_.field + "\": ";
  out += message_;
  return out;
}

}  // namespace tala
