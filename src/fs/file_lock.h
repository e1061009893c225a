#pragma once
// One writer per file: an advisory flock(2) held for as long as a command writes a results,
// labels, shard or database file. A second tala process on the same file fails at once with the
// holder's pid (read from /proc/locks), instead of interleaving rows or paying for them twice.
// Locks are released by the kernel when the process dies, so a kill -9 never leaves one stale.

#include <string>

#include "tala/status.h"

namespace tala::fs {

// Takes an exclusive, non-blocking lock on the open file `fd` (which names `path`).
// kInvalidArgument "PATH is in use by another tala process (pid N)" when another holds it.
Status LockExclusive(int fd, const std::string& path);

// Owns a descriptor opened only to hold the lock (for files another library writes, such as an
// SQLite database). Movable; the lock goes with the last owner.
class FileLock {
 public:
  // Opens (creating when missing, unless `create` is false) and locks `path`.
  static Result<FileLock> Acquire(const std::string& path, bool create = true);
  FileLock() = default;
  FileLock(FileLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  FileLock& operator=(FileLock&& o) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();
  bool held() const { return fd_ >= 0; }

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace tala::fs
