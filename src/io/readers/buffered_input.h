#pragma once
// BufferedInput: a file (or stdin) read in large chunks into a buffer that always keeps
// simdjson's padding after its data, so a line can be parsed in place without a copy.
// Memory stays bounded by the longest line accepted. Not thread-safe.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "tala/status.h"

namespace tala::io {

class BufferedInput {
 public:
  static Result<BufferedInput> Open(const std::string& path);  // "-" reads stdin
  // Opens a file to read from byte `offset` on (line numbers then count from there).
  static Result<BufferedInput> OpenAt(const std::string& path, uint64_t offset);
  BufferedInput(BufferedInput&& other) noexcept;
  BufferedInput& operator=(BufferedInput&&) = delete;
  ~BufferedInput();

  enum class LineStatus { kLine, kTooLong, kEnd, kError };
  // Next line without its "\n" (and "\r"); the view stays valid until the next call, and at
  // least kPadding readable bytes follow it. A line over `max_bytes` is skipped whole: kTooLong;
  // one that runs on past kMaxSkippedLine is an error (kError, error() says why).
  LineStatus NextLine(std::string_view* line, size_t max_bytes);
  // One byte, or EOF. For the character-level readers (CSV, JSON array).
  int Get();
  int Peek();

  int64_t line_number() const { return line_number_; }  // 1-based line of the last NextLine()
  size_t bytes_read() const { return bytes_read_; }
  // The file offset of the next unread byte.
  uint64_t offset() const { return start_ + bytes_read_ + bom_ - (end_ - begin_); }
  const std::string& error() const { return error_; }
  static constexpr size_t kPadding = 64;
  // An over-long line is skipped up to this many bytes; past it NextLine gives kError.
  static constexpr uint64_t kMaxSkippedLine = uint64_t{1} << 30;

 private:
  explicit BufferedInput(std::FILE* file, bool owned);
  bool Fill(size_t min_free);  // reads more; false at end or error

  std::FILE* file_ = nullptr;
  bool owned_ = false;
  std::vector<char> buffer_;
  size_t begin_ = 0;  // first unread byte
  size_t end_ = 0;    // one past the last valid byte
  bool eof_ = false;
  bool first_chunk_ = true;
  int64_t line_number_ = 0;
  size_t bytes_read_ = 0;
  uint64_t start_ = 0;  // where reading began (OpenAt)
  size_t bom_ = 0;      // bytes of a skipped byte order mark
  std::string error_;
};

}  // namespace tala::io
