#pragma once
// Ctrl-C and SIGTERM (CI cancelling a job, timeout(1), docker stop, Kubernetes) stop a long
// command the same way: the first sets a flag the engine polls, so every finished row is kept
// and the run is recorded as cancelled; a second ends the process at once. The exit code is
// 128 + the signal (130 for Ctrl-C, 143 for SIGTERM).

#include <atomic>
#include <chrono>
#include <thread>

namespace tala::cli {

class StopOnSignals {
 public:
  StopOnSignals();  // installs the handlers for SIGINT and SIGTERM
  // The same, and a command still running `grace` after the first signal is ended then, as a
  // second signal would end it: for work that polls the flag seldom or not at all (tala
  // testset's reading and grouping), so SIGTERM always ends it promptly.
  explicit StopOnSignals(std::chrono::milliseconds grace);
  ~StopOnSignals();  // restores the previous ones
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

  const std::atomic<bool>* flag() const;
  // 128 + the signal that stopped the command (130 when none was seen).
  int exit_code() const;

 private:
  void (*previous_int_)(int);
  void (*previous_term_)(int);
  std::atomic<bool> done_{false};
  std::thread watchdog_;
};

}  // namespace tala::cli
