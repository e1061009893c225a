#pragma once
// A file of tala's own in the temporary folder (/tmp/tala-PREFIX-XXXXXX): written once, read
// back by a reader that takes a path, and removed when the object goes (a moved-from object
// removes nothing). For text that must pass through a file-reading API: a shuffled dataset, a
// request's labels, the pairs of a pairwise comparison.

#include <string>
#include <string_view>

#include "tala/status.h"

namespace tala::fs {

class ScratchFile {
 public:
  // kIoError when the file cannot be made or written (what was made is removed).
  static Result<ScratchFile> Create(const std::string& prefix, std::string_view text);
  ScratchFile(ScratchFile&& other) noexcept;
  ScratchFile& operator=(ScratchFile&& other) noexcept;
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  ~ScratchFile();
  const std::string& path() const { return path_; }

 private:
  explicit ScratchFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace tala::fs
