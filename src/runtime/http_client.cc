#include "runtime/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <mutex>
#include <vector>

#include "core/redact.h"

namespace tala::runtime {

using judges::http::HttpRequest;
using judges::http::HttpResponse;

struct HttpClient::Transfer {
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  std::string body;
  HttpResponse response;
  Callback done;
  char error[CURL_ERROR_SIZE] = {};
  size_t max_body = SIZE_MAX;  // a longer reply is cut off (N2)
  bool over = false;
};

namespace {

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<HttpClient::Transfer*>(user);
  if (t->response.body.size() + size * count > t->max_body) {
    t->over = true;
    return 0;  // curl ends the transfer with CURLE_WRITE_ERROR
  }
  t->response.body.append(data, size * count);
  return size * count;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* headers = static_cast<std::vector<std::pair<std::string, std::string>>*>(user);
  std::string line(data, size * count);
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string value = line.substr(colon + 1);
    auto strip = [](unsigned char c) { return std::isspace(c) != 0; };
    while (!value.empty() && strip(value.back())) value.pop_back();
    size_t start = 0;
    while (start < value.size() && strip(value[start])) ++start;
    headers->emplace_back(std::move(name), value.substr(start));
  } else if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();  // a new response (after a 100 Continue or a redirect)
  }
  return size * count;
}

Status TransportError(CURLcode code, const char* detail, const std::string& url) {
  std::string what = url + ": " + (detail[0] ? detail : curl_easy_strerror(code));
  if (code == CURLE_OPERATION_TIMEDOUT) return {ErrorCode::kDeadlineExceeded, what};
  return {ErrorCode::kUnavailable, what};
}

}  // namespace

Result<std::unique_ptr<HttpClient>> HttpClient::Create(int max_connections) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::unique_ptr<HttpClient> client(new HttpClient());
  client->multi_ = curl_multi_init();
  if (client->multi_ == nullptr) return Internal("curl_multi_init failed");
  // Multiplex on HTTP/2 connections instead of opening one per transfer.
  curl_multi_setopt(client->multi_, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  if (max_connections > 0) {
    // Keep as many idle connections as requests in flight: more would only sit idle and hold
    // a server worker each (many servers give every open connection a thread).
    curl_multi_setopt(client->multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(max_connections));
  }
  return client;
}

HttpClient::~HttpClient() {
  CancelAll();
  curl_multi_cleanup(multi_);
}

void HttpClient::Start(const HttpRequest& request, std::chrono::milliseconds timeout,
                       Callback done) {
  auto* t = new Transfer();
  t->done = std::move(done);
  t->body = request.body;
  t->max_body = request.max_reply_bytes;
  t->easy = curl_easy_init();
  for (const std::string& h : request.headers)
    t->headers = curl_slist_append(t->headers, h.c_str());
  // "Expect: 100-continue" would cost a round trip per large body.
  t->headers = curl_slist_append(t->headers, "Expect:");
  CURL* e = t->easy;
  curl_easy_setopt(e, CURLOPT_URL, request.url.c_str());
  if (request.method == "GET") {
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->body.data());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->body.size()));
    if (request.method != "POST") {
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }
  }
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, t);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, &t->response.headers);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                   std::min(30000L, static_cast<long>(timeout.count())));
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->error);
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
  // Waiting to learn whether a connection multiplexes only pays off on HTTP/2 (TLS).
  if (request.url.rfind("https://", 0) == 0) curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  // No Accept-Encoding: judge replies are a few hundred bytes, and compressing them costs the
  // server more time (measured: brotli was 70% of the mock's CPU) than it saves on the wire.
  curl_easy_setopt(e, CURLOPT_PRIVATE, t);
  curl_multi_add_handle(multi_, e);
  transfers_.insert(t);
  ++in_flight_;
}

void HttpClient::Finish(Transfer* t, Result<HttpResponse> result) {
  request_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t->started).count();
  curl_multi_remove_handle(multi_, t->easy);
  curl_easy_cleanup(t->easy);
  curl_slist_free_all(t->headers);
  transfers_.erase(t);
  --in_flight_;
  Callback done = std::move(t->done);
  delete t;
  done(std::move(result));
}

void HttpClient::Poll(std::chrono::milliseconds wait) {
  int running = 0;
  curl_multi_perform(multi_, &running);
  if (in_flight_ > 0 && wait.count() > 0) {
    curl_multi_poll(multi_, nullptr, 0, static_cast<int>(wait.count()), nullptr);
    curl_multi_perform(multi_, &running);
  }
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    Transfer* t = nullptr;
    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &t);
    CURLcode code = msg->data.result;
    if (code != CURLE_OK) {
      std::string url;
      char* effective = nullptr;
      curl_easy_getinfo(t->easy, CURLINFO_EFFECTIVE_URL, &effective);
      if (effective) url = effective;
      url = RedactUrl(url);
      Status error = TransportError(code, t->error, url);
      if (t->over) {
        error = Status(ErrorCode::kBadReply,
                       url + ": the reply is over " + std::to_string(t->max_body >> 20) +
                           " MiB (--max-reply-mib); it was cut off and not read");
      }
      if (code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST ||
          code == CURLE_COULDNT_RESOLVE_PROXY) {
        // curl says "Couldn't connect to server"; the system's reason ("Connection refused")
        // tells a user which of the usual causes it is.
        long os_errno = 0;
        curl_easy_getinfo(t->easy, CURLINFO_OS_ERRNO, &os_errno);
        if (os_errno != 0) {
          error = Status(error.code(),
                         error.message() + " (" + std::strerror(static_cast<int>(os_errno)) + ")");
        }
        if (unreachable_++ == 0) first_unreachable_ = error.message();
      }
      Finish(t, std::move(error));
    } else {
      ++responses_;
      curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->response.status);
      HttpResponse response = std::move(t->response);
      Finish(t, std::move(response));
    }
  }
}

void HttpClient::CancelAll() {
  std::vector<Transfer*> all(transfers_.begin(), transfers_.end());
  for (Transfer* t : all) Finish(t, Status(ErrorCode::kCancelled, "cancelled"));
}

}  // namespace tala::runtime
