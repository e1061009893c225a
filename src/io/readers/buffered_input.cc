#include "io/readers/buffered_input.h"

#include <cerrno>
#include <cstring>

namespace tala::io {

namespace {
constexpr size_t kChunk = 1 << 20;
}

Result<BufferedInput> BufferedInput::Open(const std::string& path) {
  if (path == "-") return BufferedInput(stdin, false);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    // A path that is not there is the user's mistake (kNotFound: Python's FileNotFoundError);
    // one that is there and cannot be read is the machine's.
    std::string why = "cannot open " + path + ": " + std::strerror(errno);
    return errno == ENOENT ? NotFound(std::move(why)) : IoError(std::move(why));
  }
  return BufferedInput(f, true);
}

Result<BufferedInput> BufferedInput::OpenAt(const std::string& path, uint64_t offset) {
  TALA_ASSIGN_OR_RETURN(BufferedInput input, Open(path));
  if (offset == 0) return input;
  if (path == "-" || fseeko(input.file_, static_cast<off_t>(offset), SEEK_SET) != 0) {
    return IoError("cannot seek to byte " + std::to_string(offset) + " of " + path);
  }
  input.start_ = offset;
  input.first_chunk_ = false;  // a byte order mark can only open the file
  return input;
}

BufferedInput::BufferedInput(std::FILE* file, bool owned)
    : file_(file), owned_(owned), buffer_(kChunk + kPadding) {}

BufferedInput::BufferedInput(BufferedInput&& o) noexcept
    : file_(o.file_),
      owned_(o.owned_),
      buffer_(std::move(o.buffer_)),
      begin_(o.begin_),
      end_(o.end_),
      eof_(o.eof_),
      first_chunk_(o.first_chunk_),
      line_number_(o.line_number_),
      bytes_read_(o.bytes_read_),
      start_(o.start_),
      bom_(o.bom_),
      error_(std::move(o.error_)) {
  o.file_ = nullptr;
  o.owned_ = false;
}

BufferedInput::~BufferedInput() {
  if (owned_ && file_ != nullptr) std::fclose(file_);
}

bool BufferedInput::Fill(size_t min_free) {
  if (eof_) return false;
  // Move the unread tail to the front, then grow only if the line in progress needs it.
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (buffer_.size() - kPadding - end_ < min_free) buffer_.resize(end_ + min_free + kPadding);
  size_t n = std::fread(buffer_.data() + end_, 1, buffer_.size() - kPadding - end_, file_);
  if (n == 0) {
    if (std::ferror(file_)) error_ = std::strerror(errno);
    eof_ = true;
    return false;
  }
  if (first_chunk_) {
    first_chunk_ = false;
    // A UTF-8 byte order mark is skipped: some editors and spreadsheet exports write one.
    if (n >= 3 && std::memcmp(buffer_.data() + end_, "\xEF\xBB\xBF", 3) == 0) {
      std::memmove(buffer_.data() + end_, buffer_.data() + end_ + 3, n - 3);
      n -= 3;
      bom_ = 3;
    }
  }
  end_ += n;
  bytes_read_ += n;
  std::memset(buffer_.data() + end_, 0, kPadding);
  return true;
}

BufferedInput::LineStatus BufferedInput::NextLine(std::string_view* line, size_t max_bytes) {
  size_t scanned = 0;  // bytes after begin_ known to hold no newline
  bool too_long = false;
  uint64_t dropped = 0;  // bytes of an over-long line skipped so far
  for (;;) {
    const char* start = buffer_.data() + begin_;
    size_t avail = end_ - begin_;
    const void* nl = std::memchr(start + scanned, '\n', avail - scanned);
    bool at_end = false;
    if (nl == nullptr) {
      scanned = avail;
      if (scanned > max_bytes) {
        // Drop what we have of an over-long line and keep scanning for its end.
        too_long = true;
        dropped += scanned;
        begin_ = end_;
        scanned = 0;
        if (dropped > kMaxSkippedLine) {
          // A line with no end in sight (/dev/zero, a binary stream): not a dataset, and
          // reading on would never finish.
          error_ = "line " + std::to_string(line_number_ + 1) + " runs past " +
                   std::to_string(kMaxSkippedLine >> 30) +
                   " GiB without a newline: this is not a line-based file";
          return LineStatus::kError;
        }
      }
      if (Fill(kChunk)) continue;
      if (end_ == begin_ && !too_long) {
        return error_.empty() ? LineStatus::kEnd : LineStatus::kError;
      }
      at_end = true;  // a last line without its newline
      start = buffer_.data() + begin_;
    }
    size_t len = at_end ? end_ - begin_ : static_cast<const char*>(nl) - start;
    begin_ += len + (at_end ? 0 : 1);
    ++line_number_;
    if (too_long || len > max_bytes) return LineStatus::kTooLong;
    if (len > 0 && start[len - 1] == '\r') --len;
    *line = std::string_view(start, len);
    return LineStatus::kLine;
  }
}

int BufferedInput::Peek() {
  if (begin_ == end_ && !Fill(kChunk)) return EOF;
  return static_cast<unsigned char>(buffer_[begin_]);
}

int BufferedInput::Get() {
  int c = Peek();
  if (c != EOF) ++begin_;
  return c;
}

}  // namespace tala::io
