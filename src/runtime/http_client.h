#pragma once
// The HTTP client: libcurl's multi interface, one event loop on the caller's thread, many
// transfers at once over kept-alive connections (HTTP/2 multiplexed where the server offers it).
// The only file that includes curl. Only the thread that created it may call it.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_set>

#include "judges/http/wire.h"
#include "tala/status.h"

namespace tala::runtime {

class HttpClient {
 public:
  // kDeadlineExceeded (past the timeout), kUnavailable (refused, reset, dropped mid-reply) or
  // kCancelled; a response with any HTTP status is a value.
  using Callback = std::function<void(Result<judges::http::HttpResponse>)>;

  // At most `max_connections` connections, kept alive and reused (0: curl's default).
  static Result<std::unique_ptr<HttpClient>> Create(int max_connections = 0);
  ~HttpClient();

  // Starts a POST; `done` runs later, inside Poll().
  void Start(const judges::http::HttpRequest& request, std::chrono::milliseconds timeout,
             Callback done);
  // Waits up to `wait` for network activity, then runs the callbacks of finished transfers.
  void Poll(std::chrono::milliseconds wait);
  // Ends every transfer; their callbacks run with kCancelled.
  void CancelAll();
  int in_flight() const { return in_flight_; }
  // Wall time of all finished requests, summed: divided by their number, the latency the
  // server showed.
  double request_seconds() const { return request_seconds_; }
  // Responses received with any HTTP status: a server answered.
  int64_t responses() const { return responses_; }
  // Transfers that never reached a server: connection refused, host not resolved, no route.
  // A run whose calls all end so has a wrong URL or a server that is down, not a flaky link.
  int64_t unreachable() const { return unreachable_; }
  // The first such failure's text ("http://...: Failed to connect to ... Connection refused").
  const std::string& first_unreachable() const { return first_unreachable_; }

 public:
  struct Transfer;  // one request in flight (defined in the .cc)

 private:
  HttpClient() = default;
  void Finish(Transfer* t, Result<judges::http::HttpResponse> result);
  void* multi_ = nullptr;
  int in_flight_ = 0;
  double request_seconds_ = 0;
  int64_t responses_ = 0;
  int64_t unreachable_ = 0;
  std::string first_unreachable_;
  std::unordered_set<Transfer*> transfers_;
};

}  // namespace tala::runtime
