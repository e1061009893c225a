#include "fs/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tala::fs {

namespace {

// /proc/locks lines read "1: FLOCK  ADVISORY  WRITE 4242 08:01:1311 0 EOF": the pid, then the
// device (major:minor in hex) and the inode of the locked file.
long HolderPid(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return 0;
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream in(line);
    std::string n, kind, mode, access, where;
    long pid = 0;
    if (!(in >> n >> kind)) continue;
    if (kind == "->") in >> kind;  // a waiter, listed under the lock it waits for
    if (!(in >> mode >> access >> pid >> where) || kind != "FLOCK") continue;
    unsigned major = 0, minor = 0;
    unsigned long long ino = 0;
    if (std::sscanf(where.c_str(), "%x:%x:%llu", &major, &minor, &ino) != 3) continue;
    if (ino == st.st_ino && major == ::major(st.st_dev) && minor == ::minor(st.st_dev) &&
        pid != ::getpid()) {
      return pid;
    }
  }
  return 0;
}

}  // namespace

Status LockExclusive(int fd, const std::string& path) {
  // Only a regular file has one writer: /dev/null, a pipe or a terminal is shared by design,
  // and two runs that both write to /dev/null must not refuse each other.
  struct stat st;
  if (::fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) return OkStatus();
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return OkStatus();
  if (errno != EWOULDBLOCK) {
    // A file system without locks (some network mounts): say so, but do not refuse the run.
    if (errno == ENOLCK || errno == EINVAL || errno == EOPNOTSUPP) return OkStatus();
    return IoError("cannot lock " + path + ": " + std::strerror(errno));
  }
  long pid = HolderPid(fd);
  return InvalidArgument(path + " is in use by another tala process" +
                         (pid > 0 ? " (pid " + std::to_string(pid) + ")" : std::string()) +
                         "; wait for it to finish, or write to another file");
}

Result<FileLock> FileLock::Acquire(const std::string& path, bool create) {
  int flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0);
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // a read-only file still locks
  if (fd < 0) return IoError("cannot open " + path + ": " + std::strerror(errno));
  if (Status s = LockExclusive(fd, path); !s.ok()) {
    ::close(fd);
    return s;
  }
  return FileLock(fd);
}

FileLock& FileLock::operator=(FileLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace tala::fs
