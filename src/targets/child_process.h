#pragma once
// A child process run through /bin/sh -c, with its stdin, stdout and stderr as non-blocking
// pipes. Owns the pipes and reaps the process. Only one thread uses it.

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "tala/status.h"

namespace tala::targets {

class ChildProcess {
 public:
  // kUnavailable when the process cannot be started.
  static Result<ChildProcess> Spawn(const std::string& command);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  // Kills (SIGKILL) and reaps a process still running.
  ~ChildProcess();

  int stdin_fd() const { return in_; }
  int stdout_fd() const { return out_; }
  int stderr_fd() const { return err_; }
  void CloseStdin();
  // Reads what is available from stdout/stderr into `out`; false at end of file.
  static bool Drain(int fd, std::string& out, size_t max_bytes = SIZE_MAX);
  // Writes as much of `data` as the pipe takes, erasing what was written; false when the
  // process has closed its stdin.
  bool Feed(std::string& data);
  // Reaps without waiting; true when the process has exited (`status` describes how).
  bool Exited(std::string* status);
  void Kill();

 private:
  ChildProcess() = default;
  void Release();
  pid_t pid_ = -1;
  pid_t pgid_ = -1;  // the process group the command runs in (its own)
  int in_ = -1, out_ = -1, err_ = -1;
};

}  // namespace tala::targets
