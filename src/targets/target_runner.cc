#include "targets/target_runner.h"

#include <algorithm>
#include <map>

#include "runtime/rate_limiter.h"

namespace tala::targets {

namespace {
struct Call {
  int64_t seq = 0;
  TargetCall call;
  int attempts = 0;
};

double Millis(runtime::Duration d) { return std::chrono::duration<double, std::milli>(d).count(); }
}  // namespace

Status RunCalls(Target& target, const RunnerOptions& options,
                const std::function<std::optional<TargetCall>()>& next,
                const std::function<Status(int64_t, CallOutcome)>& done,
                const std::atomic<bool>* stop, RunnerCounts& counts,
                const std::function<void()>& tick, runtime::Clock& clock) {
  runtime::RetryPolicy policy(options.retry);
  runtime::RateLimiter limiter(options.requests_per_minute, 0, clock.Now());
  std::multimap<runtime::TimePoint, Call> waiting;  // retries and rate-limited calls, by time
  Status failure;                                   // the first error `done` returned
  int64_t issued = 0;
  bool exhausted = false;

  auto start = [&](Call c) {
    ++c.attempts;
    ++counts.calls;
    runtime::TimePoint began = clock.Now();
    limiter.Take(1, began);
    TargetCall call = c.call;
    target.Start(call, options.timeout, [&, c = std::move(c), began](Result<TargetReply> r) {
      runtime::TimePoint now = clock.Now();
      if (!r) {
        // A cancelled call ends no row: the row is called again on --resume.
        if (r.error().code() == ErrorCode::kCancelled) return;
        ++counts.failed_calls;
        if (auto delay = policy.Delay(r.error().code(), c.attempts, std::nullopt)) {
          ++counts.retries;
          waiting.emplace(now + *delay, c);
          return;
        }
      }
      Status s = done(c.seq, CallOutcome{std::move(r), Millis(now - began), c.attempts});
      if (!s.ok() && failure.ok()) failure = s;
    });
    counts.in_flight = target.in_flight();
    counts.peak_in_flight = std::max(counts.peak_in_flight, counts.in_flight);
  };

  while (true) {
    if (stop != nullptr && stop->load()) {
      target.CancelAll();
      return {ErrorCode::kCancelled, "stopped by the user"};
    }
    if (std::string why = target.Broken(); !why.empty()) {
      target.CancelAll();
      return {ErrorCode::kUnavailable, why};
    }
    if (!failure.ok()) {
      target.CancelAll();
      return failure;
    }
    runtime::TimePoint now = clock.Now();
    while (target.in_flight() < options.max_in_flight) {
      Call c;
      if (!waiting.empty() && waiting.begin()->first <= now) {
        c = std::move(waiting.begin()->second);
        waiting.erase(waiting.begin());
      } else if (!exhausted) {
        std::optional<TargetCall> call = next();
        if (!call) {
          exhausted = true;
          continue;
        }
        c = Call{issued++, std::move(*call), 0};
      } else {
        break;
      }
      if (runtime::TimePoint ready = limiter.ReadyAt(1, now); ready > now) {
        waiting.emplace(ready, std::move(c));
        break;
      }
      start(std::move(c));
    }
    counts.in_flight = target.in_flight();
    if (tick) tick();
    if (exhausted && waiting.empty() && target.in_flight() == 0) return failure;
    runtime::TimePoint wake = now + std::chrono::milliseconds(50);
    if (!waiting.empty()) wake = std::min(wake, waiting.begin()->first);
    if (target.in_flight() > 0) {
      target.Poll(std::chrono::duration_cast<std::chrono::milliseconds>(
          std::max(wake - now, runtime::Duration(std::chrono::milliseconds(1)))));
    } else {
      clock.SleepUntil(wake);
    }
  }
}

}  // namespace tala::targets
