#include "cli/http_guard.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include "core/text/normalize.h"
#include "io/writers/json_text.h"

namespace tala::cli {

namespace {

void Refuse(httplib::Response& res, int code, const std::string& why) {
  std::string body = "{\"error\":";
  io::AppendJsonString(body, why);
  res.status = code;
  res.set_content(body + "}", "application/json");
}

// The machine's own names: its host name and every interface's address.
void AddMachineNames(std::set<std::string>& names) {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0 && host[0] != '\0') {
    std::string name = text::AsciiLower(host);
    names.insert(name);
    names.insert(name.substr(0, name.find('.')));  // "node1" of "node1.example.internal"
  }
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr) continue;
    char text[INET6_ADDRSTRLEN] = {};
    if (a->ifa_addr->sa_family == AF_INET) {
      auto* in = reinterpret_cast<sockaddr_in*>(a->ifa_addr);
      if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text))) names.insert(text);
    } else if (a->ifa_addr->sa_family == AF_INET6) {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(a->ifa_addr);
      if (inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text))) {
        names.insert("[" + tala::text::AsciiLower(text) + "]");
      }
    }
  }
  freeifaddrs(list);
}

}  // namespace

bool IsLoopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]";
}

ServerNames NamesOfServer(const std::string& bound, int port,
                          const std::vector<std::string>& allowed) {
  ServerNames out;
  out.port = std::to_string(port);
  out.names = {text::AsciiLower(bound), "127.0.0.1", "localhost", "[::1]"};
  if (bound.find(':') != std::string::npos) out.names.insert("[" + text::AsciiLower(bound) + "]");
  // On loopback only a page in a browser on this machine can reach the server, through a name
  // that resolves to loopback (DNS rebinding): only loopback names pass. Bound beyond it, the
  // server is reached by its real names, and needs a token besides.
  if (!IsLoopback(bound)) AddMachineNames(out.names);
  for (const std::string& name : allowed) {
    if (name == "*") out.any = true;
    if (!name.empty()) out.names.insert(text::AsciiLower(name));
  }
  return out;
}

bool RefuseForeignRequest(const httplib::Request& req, httplib::Response& res,
                          const ServerNames& names) {
  std::string host = req.get_header_value("Host");
  if (!host.empty() && !names.any) {
    // "name:port", "[v6]:port", or a bare name (the default port).
    size_t colon = host.rfind(':');
    bool has_port = colon != std::string::npos && host.find(']', colon) == std::string::npos;
    std::string name = text::AsciiLower(has_port ? host.substr(0, colon) : host);
    if (!names.names.count(name) || (has_port && host.substr(colon + 1) != names.port)) {
      Refuse(res, 421,
             "Host \"" + host +
                 "\" is not a name of this server (add it with --allowed-hosts, or '*' for any)");
      return true;
    }
  }
  std::string origin = req.get_header_value("Origin");
  if (!origin.empty()) {
    const std::string asked = text::AsciiLower(origin);
    bool same = false;
    for (const std::string& name : names.names) {
      same = same || asked == "http://" + name + ":" + names.port;
    }
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

void PrepareServer(httplib::Server& server, size_t max_body_bytes) {
  server.set_tcp_nodelay(true);
  server.set_payload_max_length(max_body_bytes);
}

void PostWithBody(httplib::Server& server, const std::string& path, size_t max_body_bytes,
                  BodyHandler handler) {
  server.Post(path, [max_body_bytes, handler = std::move(handler)](
                        const httplib::Request& req, httplib::Response& res,
                        const httplib::ContentReader& reader) {
    std::string body;
    bool over = false;
    // httplib hands the body over as it unpacks it, in pieces: the count is of unpacked bytes.
    const bool read = reader([&](const char* data, size_t size) {
      if (body.size() + size > max_body_bytes) {
        over = true;
        return false;
      }
      body.append(data, size);
      return true;
    });
    // httplib refuses a body whose Content-Length is over the limit before reading it (413).
    if (over || (!read && res.status == 413)) {
      body.clear();
      body.shrink_to_fit();
      Refuse(res, 413,
             "the body is over --max-body-bytes (" + std::to_string(max_body_bytes) +
                 " bytes, counted once unpacked); send fewer rows a request");
      res.set_header("Connection", "close");  // the rest of the body is never read
      return;
    }
    if (!read) {
      // httplib says why where it knows (415: a Content-Encoding it cannot unpack).
      Refuse(res, res.status >= 400 ? res.status : 400,
             res.status == 415 ? "the body's Content-Encoding is not taken: send it plain, gzip "
                                 "or br"
                               : "the body could not be read whole (a broken gzip or brotli "
                                 "stream, or the connection closed early)");
      res.set_header("Connection", "close");
      return;
    }
    handler(req, body, res);
  });
}

}  // namespace tala::cli
