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
  // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict on `out += ":" +
  // std::to_string(n)` (a temporary string concatenated into the one being grown).
  std::string out;
  if (!where_.file.empty()) {
    out.append(where_.file);
    if (where_.line > 0) out.append(":").append(std::to_string(where_.line));
    if (where_.column > 0) out.append(":").append(std::to_string(where_.column));
    out.append(": ");
  } else if (code_ == ErrorCode::kInternal) {
    // Only a bug says what kind it is; other messages speak for themselves, and a code name
    // ("invalid argument: ...") reads like an internal status, not advice.
    out.append(ErrorCodeName(code_)).append(": ");
  }
  if (!where_.field.empty()) out.append("field \"").append(where_.field).append("\": ");
  out.append(message_);
  return out;
}

}  // namespace tala
