#include "runtime/rate_limiter.h"

#include <algorithm>

namespace tala::runtime {

TokenBucket::TokenBucket(double per_minute, TimePoint now) : last_(now) {
  if (per_minute <= 0) return;
  per_second_ = per_minute / 60.0;
  capacity_ = std::max(1.0, per_minute / 10.0);
  level_ = capacity_;
}

void TokenBucket::Refill(TimePoint now) {
  if (now <= last_) return;
  double seconds = std::chrono::duration<double>(now - last_).count();
  level_ = std::min(capacity_, level_ + seconds * per_second_);
  last_ = now;
}

TimePoint TokenBucket::ReadyAt(double cost, TimePoint now) {
  if (per_second_ == 0) return now;
  Refill(now);
  // Oversized costs wait for a full bucket rather than forever.
  double need = std::min(cost, capacity_);
  if (level_ >= need) return now;
  auto wait = std::chrono::duration<double>((need - level_) / per_second_);
  return now + std::chrono::duration_cast<Duration>(wait) + Duration(1);
}

void TokenBucket::Take(double cost, TimePoint now) {
  if (per_second_ == 0) return;
  Refill(now);
  level_ -= cost;
}

TimePoint RateLimiter::ReadyAt(double tokens, TimePoint now) {
  return std::max(requests_.ReadyAt(1, now), tokens_.ReadyAt(tokens, now));
}

void RateLimiter::Take(double tokens, TimePoint now) {
  requests_.Take(1, now);
  tokens_.Take(tokens, now);
}

}  // namespace tala::runtime
