#pragma once
// Shared by the tests/safety suites: each test reproduces one finding of
// shared/reports/{newcomer,reliability}-findings.md through the real `tala` binary on real files
// (or HTTP), and asserts the input is intact, the exit code and the message.

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/child_process.h"
#include "cli/run_tala.h"
#include "support/temp_dir.h"

namespace tala::safety {

using testing::ChildProcess;
using testing::RunTala;
using testing::TempDir;

inline const std::string kTala = std::string(TALA_BINARY_DIR) + "/tala";
inline const std::string kDemoPath =
    std::string(TALA_SOURCE_DIR) + "/examples/data/interactions.jsonl";

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string Demo() { return Slurp(kDemoPath); }

inline bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// The non-blank lines of a file.
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// Runs `cmd` with /bin/sh and returns what it printed (stdout).
inline std::string Shell(const std::string& cmd) {
  std::string out;
  std::FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  pclose(pipe);
  return out;
}

inline size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// A results file with a manifest claiming an LLM judge (paid-for verdicts) and one row.
inline std::string PaidResults() {
  return "{\"tala_manifest\":{\"tala_version\":\"0.1.0\",\"created\":\"2026-12-01T00:00:00Z\","
         "\"dataset\":\"d.jsonl\",\"judge\":\"openai:gpt-4o-mini\",\"embeddings\":\"\","
         "\"prompts\":{},\"metrics\":{\"faithfulness\":\"1\"},\"settings\":{}}}\n"
         "{\"id\":\"a\",\"scores\":{\"faithfulness\":1},\"reasons\":{},\"metadata\":{}}\n";
}

// `tala serve` on a free port: url is http://127.0.0.1:PORT.
struct Server {
  explicit Server(const std::string& db, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {kTala, "serve", "--db", db, "--port", "0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    child = std::make_unique<ChildProcess>(argv);
    url = child->FirstLine();
  }
  std::unique_ptr<ChildProcess> child;
  std::string url;
};

}  // namespace tala::safety
