#pragma once
// What every tala server on loopback checks before routing (tala serve, tala review --serve):
// the Host names this server (against DNS rebinding), a browser request from another origin is
// refused (against cross-site writes from any page the user has open), preflights get no CORS
// allow headers, and form posts (a browser's cross-site "simple request") get 415.

#include <httplib.h>

#include <string>

namespace tala::cli {

// True when the request was answered (refused); `bound` is the address listened on.
bool RefuseForeignRequest(const httplib::Request& req, httplib::Response& res,
                          const std::string& bound, int port);

}  // namespace tala::cli
