#include "fs/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace tala::fs {

Result<AtomicFile> AtomicFile::Create(const std::string& path) {
  // A device, pipe or terminal (/dev/null, /dev/stdout, a FIFO) is written as it is: a scratch
  // file renamed onto it would replace the device itself with a regular file (as root, /dev/null
  // for the whole machine, after which every run writing there locked it).
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return IoError("cannot write " + path + ": it is a folder");
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return IoError("cannot write " + path + ": " + std::strerror(errno));
    return AtomicFile(f, path, "");
  }
  std::filesystem::path target(path);
  std::filesystem::path dir = target.parent_path();
  std::string scratch = (dir / ("." + target.filename().string() + ".tala-XXXXXX")).string();
  int fd = ::mkstemp(scratch.data());
  if (fd < 0) return IoError("cannot write " + path + ": " + std::strerror(errno));
  // mkstemp makes the file 0600; a report or results file is as readable as any other file.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  std::FILE* f = ::fdopen(fd, "wb");
  if (f == nullptr) {
    ::close(fd);
    ::unlink(scratch.c_str());
    return IoError("cannot write " + path + ": " + std::strerror(errno));
  }
  return AtomicFile(f, path, scratch);
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : file_(o.file_), path_(std::move(o.path_)), scratch_(std::move(o.scratch_)) {
  o.file_ = nullptr;
  o.scratch_.clear();
}

AtomicFile::~AtomicFile() {
  if (file_ != nullptr) std::fclose(file_);
  if (!scratch_.empty()) ::unlink(scratch_.c_str());
}

Status AtomicFile::Write(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
    return IoError("writing " + path_ + ": " + std::strerror(errno));
  }
  return OkStatus();
}

Status AtomicFile::Flush() {
  if (std::fflush(file_) != 0) return IoError("writing " + path_ + ": " + std::strerror(errno));
  return OkStatus();
}

Status AtomicFile::Commit() {
  std::FILE* f = file_;
  file_ = nullptr;
  const bool direct = scratch_.empty();  // a device or pipe, written in place
  bool ok = std::fflush(f) == 0 && (direct || ::fsync(::fileno(f)) == 0);
  int err = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) return IoError("writing " + path_ + ": " + std::strerror(err));
  if (direct) return OkStatus();
  if (std::rename(scratch_.c_str(), path_.c_str()) != 0) {
    return IoError("cannot move the finished file to " + path_ + ": " + std::strerror(errno));
  }
  scratch_.clear();
  return OkStatus();
}

Status WriteFileAtomically(const std::string& path, std::string_view text) {
  TALA_ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::Create(path));
  TALA_RETURN_IF_ERROR(file.Write(text));
  return file.Commit();
}

}  // namespace tala::fs
