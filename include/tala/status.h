#pragma once
// Status and Result<T>: tala's error values. Row-level failures are data, so every fallible
// function returns one of these; exceptions never cross a tala function boundary.
// Value types: safe to copy and to use from any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace tala {

enum class ErrorCode {
  kOk,
  kInvalidArgument,   // bad options or usage
  kDataError,         // a bad input row; carries a SourceLocation
  kNotFound,          // a file, metric or judge that does not exist
  kIoError,           // reading or writing failed
  kUnavailable,       // 5xx, connection reset: retryable
  kRateLimited,       // 429
  kDeadlineExceeded,  // a call ran past its timeout
  kBadReply,          // the judge answered outside its contract
  kCancelled,         // stopped by the user
  kInternal,          // a bug in tala
};

std::string_view ErrorCodeName(ErrorCode code);

// Where in the input a data error sits. Line and column are 1-based; 0 means unknown.
struct SourceLocation {
  std::string file;
  int64_t line = 0;
  int64_t column = 0;
  std::string field;
};

class Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message, SourceLocation where = {})
      : code_(code), message_(std::move(message)), where_(std::move(where)) {}

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  const SourceLocation& where() const { return where_; }

  // "file:line:col: field "f": message" for data errors, the message otherwise ("internal
  // error: message" for a bug).
  std::string ToString() const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
  SourceLocation where_;
};

inline Status OkStatus() { return Status(); }
inline Status InvalidArgument(std::string m) { return {ErrorCode::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {ErrorCode::kNotFound, std::move(m)}; }
inline Status IoError(std::string m) { return {ErrorCode::kIoError, std::move(m)}; }
inline Status Internal(std::string m) { return {ErrorCode::kInternal, std::move(m)}; }
inline Status DataError(SourceLocation where, std::string m) {
  return {ErrorCode::kDataError, std::move(m), std::move(where)};
}

// Holds a T or a non-OK Status, spelled like std::expected so a later move to C++23 is mechanical.
template <typename T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : data_(std::move(status)) {}  // NOLINT: implicit by design

  bool has_value() const { return data_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() & { return std::get<0>(data_); }
  const T& value() const& { return std::get<0>(data_); }
  T&& value() && { return std::get<0>(std::move(data_)); }
  const Status& error() const { return std::get<1>(data_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> data_;
};

namespace internal {
inline Status AsStatus(Status s) { return s; }
template <typename T>
Status AsStatus(const Result<T>& r) {
  return r.has_value() ? Status() : r.error();
}
}  // namespace internal

}  // namespace tala

#define TALA_RETURN_IF_ERROR(expr)                                    \
  do {                                                                \
    ::tala::Status tala_status_ = ::tala::internal::AsStatus((expr)); \
    if (!tala_status_.ok()) return tala_status_;                      \
  } while (0)

#define TALA_CONCAT_INNER_(a, b) a##b
#define TALA_CONCAT_(a, b) TALA_CONCAT_INNER_(a, b)
#define TALA_ASSIGN_OR_RETURN(lhs, expr) \
  TALA_ASSIGN_OR_RETURN_IMPL_(TALA_CONCAT_(tala_result_, __LINE__), lhs, expr)
#define TALA_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.has_value()) return tmp.error();         \
  lhs = std::move(tmp).value()
