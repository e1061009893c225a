#pragma once
// Test helper: runs the built `tala` binary through the shell and captures its output.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace tala::testing {

struct CommandOutput {
  int exit_code = -1;
  std::string out;  // stdout (and stderr when merged)
};

// `args` is appended to the binary's path as shell words; "2>&1" merges stderr.
inline CommandOutput RunTala(const std::string& args) {
  std::string cmd = std::string(TALA_BINARY_DIR) + "/tala " + args;
  CommandOutput result;
  std::FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) result.out.append(buf.data(), n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace tala::testing
