#include "targets/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

extern char** environ;

namespace tala::targets {

namespace {
void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}
}  // namespace

Result<ChildProcess> ChildProcess::Spawn(const std::string& command) {
  // Writing to a process that has died must be an error, not a SIGPIPE that ends tala.
  ::signal(SIGPIPE, SIG_IGN);
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return Status(ErrorCode::kUnavailable, "pipe failed");
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    return Status(ErrorCode::kUnavailable, "pipe failed");
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    return Status(ErrorCode::kUnavailable, "pipe failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  // The child gets default signal handling (tala ignores SIGPIPE; the child should not).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  // Its own process group, so that a deadline kills whatever the command started too.
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  const char* argv[] = {"sh", "-c", command.c_str(), nullptr};
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, const_cast<char**>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]), ::close(out[1]), ::close(err[1]);
  if (rc != 0) {
    ::close(in[1]), ::close(out[0]), ::close(err[0]);
    return Status(ErrorCode::kUnavailable,
                  "cannot start \"" + command + "\": " + std::strerror(rc));
  }
  ChildProcess p;
  p.pid_ = pid;
  p.pgid_ = pid;
  p.in_ = in[1];
  p.out_ = out[0];
  p.err_ = err[0];
  for (int fd : {p.in_, p.out_, p.err_}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  return p;
}

ChildProcess::ChildProcess(ChildProcess&& o) noexcept { *this = std::move(o); }

ChildProcess& ChildProcess::operator=(ChildProcess&& o) noexcept {
  if (this != &o) {
    Release();
    pid_ = std::exchange(o.pid_, -1);
    pgid_ = std::exchange(o.pgid_, -1);
    in_ = std::exchange(o.in_, -1);
    out_ = std::exchange(o.out_, -1);
    err_ = std::exchange(o.err_, -1);
  }
  return *this;
}

ChildProcess::~ChildProcess() { Release(); }

void ChildProcess::Release() {
  CloseFd(in_);
  CloseFd(out_);
  CloseFd(err_);
  // What the command left running in its group (a background child) goes with it.
  if (pgid_ > 0) ::kill(-pgid_, SIGKILL);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
  pgid_ = -1;
}

void ChildProcess::CloseStdin() { CloseFd(in_); }

void ChildProcess::Kill() {
  if (pgid_ > 0) ::kill(-pgid_, SIGKILL);  // the group: children the command left running too
  if (pid_ > 0) ::kill(pid_, SIGKILL);
}

bool ChildProcess::Drain(int fd, std::string& out, size_t max_bytes) {
  char buf[65536];
  // Never more than `max_bytes` held: a process that floods its output (N2) is cut off here
  // and its caller fails the call, instead of growing memory until the process dies.
  while (out.size() <= max_bytes) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) return false;
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
  }
  return true;
}

bool ChildProcess::Feed(std::string& data) {
  while (!data.empty() && in_ >= 0) {
    ssize_t n = ::write(in_, data.data(), data.size());
    if (n > 0) {
      data.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
  return in_ >= 0;
}

bool ChildProcess::Exited(std::string* status) {
  if (pid_ <= 0) return true;
  int ws = 0;
  pid_t r = ::waitpid(pid_, &ws, WNOHANG);
  if (r == 0) return false;
  pid_ = -1;
  if (r < 0) {
    *status = "lost";
  } else if (WIFEXITED(ws)) {
    *status = "exit status " + std::to_string(WEXITSTATUS(ws));
  } else if (WIFSIGNALED(ws)) {
    *status = std::string("killed by signal ") + std::to_string(WTERMSIG(ws));
  }
  return true;
}

}  // namespace tala::targets
