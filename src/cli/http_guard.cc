#include "cli/http_guard.h"

#include <set>

#include "io/writers/json_text.h"

namespace tala::cli {

namespace {

void Refuse(httplib::Response& res, int code, const std::string& why) {
  std::string body = "{\"error\":";
  io::AppendJsonString(body, why);
  res.status = code;
  res.set_content(body + "}", "application/json");
}

}  // namespace

bool RefuseForeignRequest(const httplib::Request& req, httplib::Response& res,
                          const std::string& bound, int port) {
  // The bound address, and loopback by name or number ("::1" is written "[::1]" in a Host).
  const std::set<std::string> names = {bound, "127.0.0.1", "localhost", "[::1]"};
  const std::string port_text = std::to_string(port);
  std::string host = req.get_header_value("Host");
  if (!host.empty()) {
    // "name:port", "[v6]:port", or a bare name (the default port).
    size_t colon = host.rfind(':');
    bool has_port = colon != std::string::npos && host.find(']', colon) == std::string::npos;
    std::string name = has_port ? host.substr(0, colon) : host;
    if (!names.count(name) || (has_port && host.substr(colon + 1) != port_text)) {
      Refuse(res, 421, "Host \"" + host + "\" is not this server");
      return true;
    }
  }
  std::string origin = req.get_header_value("Origin");
  if (!origin.empty()) {
    bool same = false;
    for (const std::string& name : names)
      same = same || origin == "http://" + name + ":" + port_text;
    if (!same) {
      Refuse(res, 403, "cross-origin requests are refused (Origin " + origin + ")");
      return true;
    }
  }
  if (req.method == "OPTIONS") {
    res.status = 204;  // no Access-Control-Allow-* headers: a browser sends nothing further
    return true;
  }
  if (req.method == "POST") {
    std::string type = req.get_header_value("Content-Type");
    if (type.rfind("application/x-www-form-urlencoded", 0) == 0 ||
        type.rfind("multipart/", 0) == 0) {
      Refuse(res, 415,
             "Content-Type " + type +
                 " is not taken: send application/json or application/x-ndjson (curl: -H "
                 "'Content-Type: application/json')");
      return true;
    }
  }
  return false;
}

}  // namespace tala::cli
