#include "history/remote_store.h"

#include <simdjson.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <optional>

#include "history/history_json.h"
#include "history/run_capture.h"
#include "runtime/http_client.h"

namespace tala::history {

namespace {

std::string UrlEncode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

std::string TagQuery(const HistoryTags& tags) {
  std::string q;
  for (const auto& [k, v] : tags) q += "&tag=" + UrlEncode(k + "=" + v);
  return q;
}

class RemoteHistory : public History {
 public:
  RemoteHistory(std::string base, std::string token)
      : base_(std::move(base)), token_(std::move(token)) {
    while (!base_.empty() && base_.back() == '/') base_.pop_back();
  }

  Result<HistoryAdded> Add(const HistoryAddOptions& options) override {
    TALA_ASSIGN_OR_RETURN(RunCapture capture, CaptureRun(options));
    TALA_ASSIGN_OR_RETURN(std::string body, Call("POST", "/v1/history/runs", CaptureJson(capture)));
    TALA_ASSIGN_OR_RETURN(HistoryAdded added, ParseAdded(body));
    return added;
  }

  Result<std::vector<HistoryRun>> Runs(const HistoryTags& tags) override {
    TALA_ASSIGN_OR_RETURN(std::string body, Call("GET", "/v1/history/runs?" + TagQuery(tags), ""));
    return ParseRunsJson(body);
  }

  Result<Trend> TrendOf(const TrendOptions& o) override {
    TALA_ASSIGN_OR_RETURN(std::string body, Call("GET", "/v1/history/trend?" + Query(o), ""));
    return ParseTrendJson(body);
  }

  Result<int64_t> Prune(const HistoryPrune& o) override {
    std::string body = "{\"keep\":" + std::to_string(o.keep) +
                       ",\"older_than_days\":" + std::to_string(o.older_than_days) + "}";
    TALA_ASSIGN_OR_RETURN(std::string reply, Call("POST", "/v1/history/prune", body));
    simdjson::dom::parser parser;
    int64_t removed = 0;
    if (parser.parse(reply)["removed"].get(removed)) {
      return Status(ErrorCode::kBadReply, base_ + "/v1/history/prune: unexpected reply");
    }
    return removed;
  }

  Result<std::string> PageHtml(const TrendOptions& o) override {
    return Call("GET", "/v1/history/page?" + Query(o), "");
  }

 private:
  std::string Query(const TrendOptions& o) const {
    return "metric=" + UrlEncode(o.metric) + "&min_effect=" + std::to_string(o.min_effect) +
           TagQuery(o.tags);
  }

  Result<HistoryAdded> ParseAdded(const std::string& body) {
    // {"added":true|false,"run":{...}}
    simdjson::dom::parser parser;
    simdjson::dom::element root, run;
    bool added = false;
    if (parser.parse(body).get(root) || root["added"].get(added) || root["run"].get(run)) {
      return Status(ErrorCode::kBadReply, base_ + "/v1/history/runs: unexpected reply");
    }
    TALA_ASSIGN_OR_RETURN(HistoryRun parsed,
                          ParseRunJson(simdjson::minify(run), base_ + "/v1/history/runs"));
    return HistoryAdded{added, std::move(parsed)};
  }

  Result<std::string> Call(const std::string& method, const std::string& path,
                           const std::string& body) {
    TALA_ASSIGN_OR_RETURN(auto client, runtime::HttpClient::Create(1));
    judges::http::HttpRequest request;
    request.url = base_ + path;
    request.method = method;
    request.body = body;
    request.headers.push_back("Content-Type: application/json");
    if (!token_.empty()) request.headers.push_back("Authorization: Bearer " + token_);
    std::optional<Result<judges::http::HttpResponse>> reply;
    client->Start(request, std::chrono::seconds(120),
                  [&reply](Result<judges::http::HttpResponse> r) { reply.emplace(std::move(r)); });
    while (!reply) client->Poll(std::chrono::milliseconds(100));
    const std::string where = base_ + path.substr(0, path.find('?'));
    if (!*reply) {
      return Status(reply->error().code(), where + ": " + reply->error().message());
    }
    const auto& response = **reply;
    if (response.status >= 200 && response.status < 300) return response.body;
    // The serve's error replies are {"error": "..."}: its words, with the status.
    std::string said = response.body;
    if (said.size() > 400) said = said.substr(0, 400) + "...";
    ErrorCode code = response.status == 404   ? ErrorCode::kNotFound
                     : response.status == 400 ? ErrorCode::kInvalidArgument
                     : response.status == 401 ? ErrorCode::kInvalidArgument
                     : response.status >= 500 ? ErrorCode::kUnavailable
                                              : ErrorCode::kBadReply;
    return Status(code, where + ": HTTP " + std::to_string(response.status) + ": " + said);
  }

  std::string base_, token_;
};

}  // namespace

std::unique_ptr<History> OpenRemote(const std::string& base_url, const std::string& token) {
  return std::make_unique<RemoteHistory>(base_url, token);
}

}  // namespace tala::history
