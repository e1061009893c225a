#pragma once
// Files written at the end of a command (reports, merged results, exports, labels) are written
// to a scratch file of their own beside the target and renamed into place, so a crash, a full
// disk or a second writer never leaves a half-written file, and the previous file stays whole
// until the new one is complete.

#include <cstdio>
#include <string>
#include <string_view>

#include "tala/status.h"

namespace tala::fs {

class AtomicFile {
 public:
  // Creates a unique scratch file (".NAME.tala-XXXXXX") in the target's folder; a target that is
  // a device, pipe or terminal is written in place instead (never replaced by a file), and its
  // scratch_path() is empty.
  static Result<AtomicFile> Create(const std::string& path);
  AtomicFile(AtomicFile&& o) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  ~AtomicFile();  // removes the scratch file unless committed

  std::FILE* file() { return file_; }
  Status Write(std::string_view text);
  // Flushes, syncs and renames the scratch file onto the target.
  Status Commit();
  const std::string& path() const { return path_; }
  // The scratch file, readable once Flush() returned OK (to check it before Commit()).
  const std::string& scratch_path() const { return scratch_; }
  Status Flush();

 private:
  AtomicFile(std::FILE* f, std::string path, std::string scratch)
      : file_(f), path_(std::move(path)), scratch_(std::move(scratch)) {}
  std::FILE* file_ = nullptr;
  std::string path_, scratch_;
};

// The whole of `text` to `path`, through an AtomicFile.
Status WriteFileAtomically(const std::string& path, std::string_view text);

}  // namespace tala::fs
