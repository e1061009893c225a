#pragma once
// An HTTP target: the request body POSTed (or PUT) to the URL over the runtime's HTTP client
// (kept-alive connections, many calls at once). 2xx is a reply; 429 and 5xx are retryable
// errors; other statuses are errors that are not retried.

#include <memory>
#include <string>
#include <vector>

#include "runtime/http_client.h"
#include "targets/target.h"

namespace tala::targets {

class HttpTarget : public Target {
 public:
  // kInvalidArgument for a method other than POST or PUT, or a header naming an unset ${VAR}.
  static Result<std::unique_ptr<HttpTarget>> Create(const TargetSpec& spec, int max_in_flight);
  void Start(const TargetCall& call, std::chrono::milliseconds timeout,
             TargetCallback done) override;
  void Poll(std::chrono::milliseconds wait) override { client_->Poll(wait); }
  int in_flight() const override { return client_->in_flight(); }
  void CancelAll() override { client_->CancelAll(); }
  std::string Broken() const override;

 private:
  HttpTarget() = default;
  std::unique_ptr<runtime::HttpClient> client_;
  judges::http::HttpRequest request_;  // url, method, headers; the body is set per call
};

}  // namespace tala::targets
