#pragma once
// The runtime's clock, injectable so rate limits and backoff are tested exactly, with no sleeps.
// SystemClock() is the steady clock; ManualClock moves only when told to (or when the runtime
// would sleep). Only the runtime's thread uses a clock.

#include <chrono>

namespace tala::runtime {

using Duration = std::chrono::steady_clock::duration;
using TimePoint = std::chrono::steady_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint Now() = 0;
  // Blocks until `when` (returns at once when it has passed).
  virtual void SleepUntil(TimePoint when) = 0;
};

Clock& SystemClock();

// Starts at an arbitrary fixed point; SleepUntil jumps to the time asked.
class ManualClock : public Clock {
 public:
  TimePoint Now() override { return now_; }
  void SleepUntil(TimePoint when) override {
    if (when > now_) now_ = when;
  }
  void Advance(Duration d) { now_ += d; }

 private:
  TimePoint now_ = TimePoint(std::chrono::hours(1));
};

}  // namespace tala::runtime
