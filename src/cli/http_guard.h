#pragma once
// What every tala server checks before routing (tala serve, tala review --serve): the Host names
// this server (against DNS rebinding), a browser request from another origin is refused (against
// cross-site writes from any page the user has open), preflights get no CORS allow headers, and
// form posts (a browser's cross-site "simple request") get 415. And how each of them listens:
// responses go out at once (TCP_NODELAY), request bodies are held to a size once unpacked.

#include <httplib.h>

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace tala::cli {

// An address that only this machine reaches: 127.0.0.1, localhost, ::1 (or [::1]).
bool IsLoopback(const std::string& host);

// The names a request may call this server by (its Host header, and a browser's Origin).
struct ServerNames {
  std::set<std::string> names;  // lower case; "[v6]" in brackets, as a Host writes it
  std::string port;
  bool any = false;  // --allowed-hosts '*'
};

// Loopback by name and number and the bound address; when bound beyond loopback, also the
// machine's host name and the addresses of its interfaces (what a Collector, a Prometheus scrape
// or a probe by pod IP sends); and `allowed` (--allowed-hosts: names a proxy or a service name
// uses, or "*" for any).
ServerNames NamesOfServer(const std::string& bound, int port,
                          const std::vector<std::string>& allowed);

// True when the request was answered (refused).
bool RefuseForeignRequest(const httplib::Request& req, httplib::Response& res,
                          const ServerNames& names);

// Every tala server's socket settings: TCP_NODELAY (a response is written in two parts, headers
// then body, and Nagle's algorithm held the second until the client's delayed ACK, ~40 ms on every
// kept-alive request) and the largest body taken (413 past it).
void PrepareServer(httplib::Server& server, size_t max_body_bytes);

// A POST route whose body is read as it arrives, unpacked when gzip or brotli, and held to
// `max_body_bytes` unpacked: a small body that unpacks past it (a compression bomb) is answered
// 413 once the limit is reached, never held whole.
using BodyHandler =
    std::function<void(const httplib::Request&, const std::string& body, httplib::Response&)>;
void PostWithBody(httplib::Server& server, const std::string& path, size_t max_body_bytes,
                  BodyHandler handler);

}  // namespace tala::cli
