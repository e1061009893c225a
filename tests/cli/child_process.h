#pragma once
// Test helper: a child process (the mock judge program, or tala itself) started with fork/exec,
// whose first stdout line can be read and which is killed when the helper goes.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace tala::testing {

class ChildProcess {
 public:
  // argv[0] is the program's path. stdout is piped (for FirstLine) or sent to /dev/null.
  explicit ChildProcess(std::vector<std::string> argv, bool pipe_stdout = true) {
    int fds[2] = {-1, -1};
    if (pipe_stdout && pipe(fds) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      if (pipe_stdout) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
      } else {
        std::freopen("/dev/null", "w", stdout);
      }
      std::freopen("/dev/null", "w", stderr);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    if (pipe_stdout) {
      close(fds[1]);
      out_ = fdopen(fds[0], "r");
    }
  }
  ~ChildProcess() {
    Kill(SIGTERM);
    if (out_) std::fclose(out_);
  }
  pid_t pid() const { return pid_; }
  std::string FirstLine() {
    char buf[512] = {};
    if (out_ == nullptr || std::fgets(buf, sizeof buf, out_) == nullptr) return "";
    std::string line(buf);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    return line;
  }
  void Kill(int signal) {
    if (pid_ <= 0) return;
    kill(pid_, signal);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  // Sends `signal` and returns the exit code (-1 when the child died of a signal).
  int Stop(int signal) {
    if (pid_ <= 0) return -1;
    kill(pid_, signal);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  bool running() const { return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  pid_t pid_ = -1;
  std::FILE* out_ = nullptr;
};

// The built tala-mock-judge program with `extra` flags; *url receives the base URL it prints.
inline std::unique_ptr<ChildProcess> StartMockJudge(std::vector<std::string> extra,
                                                    std::string* url) {
  std::vector<std::string> argv = {std::string(TALA_BINARY_DIR) + "/tala-mock-judge"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto mock = std::make_unique<ChildProcess>(argv);
  *url = mock->FirstLine();
  return mock;
}

}  // namespace tala::testing
