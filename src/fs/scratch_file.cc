#include "fs/scratch_file.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace tala::fs {

Result<ScratchFile> ScratchFile::Create(const std::string& prefix, std::string_view text) {
  std::string name = "/tmp/tala-" + prefix + "-XXXXXX";
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return IoError("cannot create a temporary file for " + prefix);
  ScratchFile file(name);  // removed on every path out
  std::FILE* out = ::fdopen(fd, "wb");
  if (out == nullptr) {
    ::close(fd);
    return IoError("cannot write " + name);
  }
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  if (std::fclose(out) != 0 || !written) return IoError("cannot write " + name);
  return file;
}

ScratchFile::ScratchFile(ScratchFile&& other) noexcept : path_(std::exchange(other.path_, "")) {}

ScratchFile& ScratchFile::operator=(ScratchFile&& other) noexcept {
  if (this != &other) {
    if (!path_.empty()) std::remove(path_.c_str());
    path_ = std::exchange(other.path_, "");
  }
  return *this;
}

ScratchFile::~ScratchFile() {
  if (!path_.empty()) std::remove(path_.c_str());
}

}  // namespace tala::fs
