#include "cli/stop_signals.h"

#include <csignal>
#include <cstdlib>
#include <thread>

namespace tala::cli {

namespace {
std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
extern "C" void OnCommandStopSignal(int sig) {
  g_signal = sig;
  if (g_stop.exchange(true)) std::_Exit(128 + sig);
}
}  // namespace

StopOnSignals::StopOnSignals() {
  g_stop = false;
  g_signal = 0;
  previous_int_ = std::signal(SIGINT, OnCommandStopSignal);
  previous_term_ = std::signal(SIGTERM, OnCommandStopSignal);
}

StopOnSignals::StopOnSignals(std::chrono::milliseconds grace) : StopOnSignals() {
  watchdog_ = std::thread([this, grace] {
    constexpr auto kTick = std::chrono::milliseconds(20);
    while (!done_ && !g_stop) std::this_thread::sleep_for(kTick);
    for (auto waited = std::chrono::milliseconds(0); !done_ && waited < grace; waited += kTick) {
      std::this_thread::sleep_for(kTick);
    }
    if (!done_) std::_Exit(exit_code());
  });
}

StopOnSignals::~StopOnSignals() {
  done_ = true;
  if (watchdog_.joinable()) watchdog_.join();
  std::signal(SIGINT, previous_int_);
  std::signal(SIGTERM, previous_term_);
}

const std::atomic<bool>* StopOnSignals::flag() const { return &g_stop; }

int StopOnSignals::exit_code() const {
  int sig = g_signal.load();
  return 128 + (sig != 0 ? sig : SIGINT);
}

}  // namespace tala::cli
