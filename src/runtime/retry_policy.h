#pragma once
// Which failures are retried and how long to wait: 429, 5xx, timeouts, dropped connections and
// garbled reply envelopes are retried with exponential backoff and full jitter (seeded, so a run
// is reproducible); a server's Retry-After (seconds or an HTTP date) or retry-after-ms is
// honoured. 400/401/403/404 are never retried. Only the runtime's thread uses it.

#include <cstdint>
#include <optional>
#include <random>
#include <string_view>

#include "runtime/clock.h"
#include "tala/status.h"

namespace tala::runtime {

struct RetryOptions {
  int max_retries = 6;                                   // retries per call after the first try
  Duration base_delay = std::chrono::milliseconds(500);  // first backoff, doubled per retry
  Duration max_delay = std::chrono::seconds(60);         // cap of the exponential backoff
  uint64_t seed = 1;                                     // jitter's seed
};

bool IsRetryable(ErrorCode code);

// "120" or "Wed, 21 Oct 2026 07:28:00 GMT" (relative to `now_unix_seconds`); nullopt when
// unreadable. `retry_after_ms` ("250") wins when present.
std::optional<Duration> ParseRetryAfter(std::string_view retry_after,
                                        std::string_view retry_after_ms, int64_t now_unix_seconds);

class RetryPolicy {
 public:
  explicit RetryPolicy(RetryOptions options) : options_(options), rng_(options.seed) {}
  // The wait before retry number `retry` (1 = the first retry) of a call that failed with
  // `code`; nullopt when it must not be retried (not retryable, or retries used up).
  std::optional<Duration> Delay(ErrorCode code, int retry, std::optional<Duration> retry_after);
  const RetryOptions& options() const { return options_; }

 private:
  RetryOptions options_;
  std::mt19937_64 rng_;
};

}  // namespace tala::runtime
