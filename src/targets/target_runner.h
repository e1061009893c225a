#pragma once
// Calls a target for a stream of rows: at most max_in_flight at once, a requests-per-minute
// limit, a timeout per call, and retries with backoff (seeded jitter) on timeouts, 429, 5xx and
// crashed processes, never on 4xx. Rows finish in completion order. One thread.

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>

#include "runtime/clock.h"
#include "runtime/retry_policy.h"
#include "targets/target.h"

namespace tala::targets {

struct RunnerOptions {
  int max_in_flight = 8;
  std::chrono::milliseconds timeout{60000};
  runtime::RetryOptions retry;
  double requests_per_minute = 0;
};

struct CallOutcome {
  Result<TargetReply> reply = Status(ErrorCode::kInternal, "not called");
  double latency_ms = 0;  // of the attempt that ended the row
  int attempts = 0;
};

struct RunnerCounts {
  int64_t calls = 0, retries = 0, failed_calls = 0;
  int in_flight = 0, peak_in_flight = 0;
};

// `next` gives the next call (nullopt: no more); `done(seq, outcome)` gets each row's end, seq
// counting calls in the order `next` gave them. A non-OK status from `done` stops the run.
// kCancelled when `stop` is set; kUnavailable when the target reports itself broken.
Status RunCalls(Target& target, const RunnerOptions& options,
                const std::function<std::optional<TargetCall>()>& next,
                const std::function<Status(int64_t, CallOutcome)>& done,
                const std::atomic<bool>* stop, RunnerCounts& counts,
                const std::function<void()>& tick, runtime::Clock& clock = runtime::SystemClock());

}  // namespace tala::targets
