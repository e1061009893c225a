#include "targets/http_target.h"

#include "targets/exec_target.h"
#include "targets/request_template.h"

namespace tala::targets {

namespace {
Status ForStatus(long status, const std::string& body) {
  std::string text = "HTTP " + std::to_string(status) + ": " + body.substr(0, 200);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (status == 429) return {ErrorCode::kRateLimited, text};
  if (status >= 500 || status == 408) return {ErrorCode::kUnavailable, text};
  // A 4xx says the request itself is wrong: retrying it would get the same answer.
  return {ErrorCode::kInvalidArgument, text};
}
}  // namespace

Result<std::unique_ptr<HttpTarget>> HttpTarget::Create(const TargetSpec& spec, int max_in_flight) {
  if (spec.method != "POST" && spec.method != "PUT") {
    return InvalidArgument("target method must be POST or PUT, not \"" + spec.method + "\"");
  }
  std::unique_ptr<HttpTarget> t(new HttpTarget());
  TALA_ASSIGN_OR_RETURN(t->client_, runtime::HttpClient::Create(max_in_flight));
  t->request_.url = spec.target;
  t->request_.method = spec.method;
  t->request_.max_reply_bytes = spec.max_reply_bytes;
  bool has_type = false;
  for (const std::string& h : spec.headers) {
    std::string missing;
    std::string expanded = ExpandEnvironment(h, &missing);
    if (!missing.empty()) {
      // The header's value is not quoted: it may hold a secret.
      return InvalidArgument("target header \"" + h.substr(0, h.find(':')) + "\" names ${" +
                             missing + "}, which is not set");
    }
    has_type = has_type || expanded.rfind("Content-Type:", 0) == 0 ||
               expanded.rfind("content-type:", 0) == 0;
    t->request_.headers.push_back(std::move(expanded));
  }
  if (!has_type) t->request_.headers.push_back("Content-Type: application/json");
  return t;
}

void HttpTarget::Start(const TargetCall& call, std::chrono::milliseconds timeout,
                       TargetCallback done) {
  judges::http::HttpRequest request = request_;
  request.body = call.request;
  client_->Start(request, timeout, [done = std::move(done)](Result<judges::http::HttpResponse> r) {
    if (!r) return done(r.error());
    if (r->status < 200 || r->status > 299) {
      return done(ForStatus(r->status, r->body));
    }
    done(TargetReply{std::move(r->body), ""});
  });
}

std::string HttpTarget::Broken() const {
  // A few calls that never reached a server, and none that did: a wrong URL or a server that is
  // down, not a flaky link.
  if (client_->responses() > 0 || client_->unreachable() < 3) return "";
  return "cannot reach the target: " + client_->first_unreachable() +
         " (the first 3 calls could not connect and none was answered; is the app running, and "
         "is --target right?)";
}

Result<std::unique_ptr<Target>> CreateTarget(const TargetSpec& spec, int max_in_flight,
                                             int max_restarts) {
  const std::string& t = spec.target;
  if (t.rfind("http://", 0) == 0 || t.rfind("https://", 0) == 0) {
    TALA_ASSIGN_OR_RETURN(auto http, HttpTarget::Create(spec, max_in_flight));
    return std::unique_ptr<Target>(std::move(http));
  }
  if (t.rfind("exec-once:", 0) == 0 && t.size() > 10) {
    return std::unique_ptr<Target>(new ExecOnceTarget(t.substr(10), spec.max_reply_bytes));
  }
  if (t.rfind("exec:", 0) == 0 && t.size() > 5) {
    return std::unique_ptr<Target>(new ExecTarget(t.substr(5), max_restarts, spec.max_reply_bytes));
  }
  return InvalidArgument(
      "--target must be http://HOST/PATH, https://..., 'exec:COMMAND' or "
      "'exec-once:COMMAND', not \"" +
      t + "\"");
}

}  // namespace tala::targets
