#pragma once
// Rate limits per judge: requests per minute and tokens per minute, each a token bucket that
// refills continuously at limit/60 s and holds at most a tenth of a minute's allowance (so a
// start-up burst stays within what providers tolerate). A call larger than the bucket may go
// when the bucket is full, and leaves it in debt. Only the runtime's thread uses it.

#include "runtime/clock.h"

namespace tala::runtime {

class TokenBucket {
 public:
  // per_minute <= 0: unlimited.
  TokenBucket(double per_minute, TimePoint now);
  // The earliest time `cost` may be taken (`now` when it may go at once).
  TimePoint ReadyAt(double cost, TimePoint now);
  void Take(double cost, TimePoint now);
  // Corrects an estimate once the true cost is known (may be negative).
  void Adjust(double delta) { level_ -= delta; }
  double level() const { return level_; }

 private:
  void Refill(TimePoint now);
  double per_second_ = 0;
  double capacity_ = 0;
  double level_ = 0;
  TimePoint last_;
};

class RateLimiter {
 public:
  RateLimiter(double requests_per_minute, double tokens_per_minute, TimePoint now)
      : requests_(requests_per_minute, now), tokens_(tokens_per_minute, now) {}
  TimePoint ReadyAt(double tokens, TimePoint now);
  void Take(double tokens, TimePoint now);
  void AdjustTokens(double delta) { tokens_.Adjust(delta); }

 private:
  TokenBucket requests_, tokens_;
};

}  // namespace tala::runtime
