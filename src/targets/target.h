#pragma once
// A target: the system under test, called once per golden row. Event-loop style, like the
// runtime's HTTP client: Start() begins a call, Poll() waits for activity and runs the callbacks
// of finished calls on the caller's thread. Only the thread that created a target may call it.

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "tala/status.h"
#include "tala/target_spec.h"

namespace tala::targets {

struct TargetCall {
  std::string id;       // the golden row's id (exec replies are matched by it)
  std::string request;  // the request body (HTTP) or line (exec), JSON
};

struct TargetReply {
  std::string body;         // the reply's JSON text
  std::string stderr_text;  // what the process wrote on stderr for this call (exec-once)
};

// Errors: kUnavailable (refused, reset, 5xx, a crashed process: retryable), kRateLimited (429),
// kDeadlineExceeded (past the timeout), kInvalidArgument (4xx: not retried), kCancelled.
using TargetCallback = std::function<void(Result<TargetReply>)>;

class Target {
 public:
  virtual ~Target() = default;
  virtual void Start(const TargetCall& call, std::chrono::milliseconds timeout,
                     TargetCallback done) = 0;
  virtual void Poll(std::chrono::milliseconds wait) = 0;
  virtual int in_flight() const = 0;
  // Ends every call; their callbacks run with kCancelled.
  virtual void CancelAll() = 0;
  // Process restarts after crashes (exec targets); 0 for others.
  virtual int64_t restarts() const { return 0; }
  // Non-empty when no call can succeed any more: an HTTP server never reached, an exec process
  // that crashed more often than allowed. The runner then stops the run with this text.
  virtual std::string Broken() const { return ""; }
};

// From spec.target: http(s)://, exec:, exec-once:. kInvalidArgument for anything else.
Result<std::unique_ptr<Target>> CreateTarget(const TargetSpec& spec, int max_in_flight,
                                             int max_restarts);

}  // namespace tala::targets
