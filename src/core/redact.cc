#include "core/redact.h"

#include <algorithm>
#include <cctype>

namespace tala {

namespace {
bool SecretName(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* word : {"key", "token", "secret", "password", "passwd", "auth", "sig"}) {
    if (name.find(word) != std::string::npos) return true;
  }
  return false;
}
}  // namespace

std::string RedactUrl(const std::string& url) {
  std::string out = url;
  size_t scheme = out.find("://");
  size_t host_start = scheme == std::string::npos ? 0 : scheme + 3;
  size_t host_end = out.find_first_of("/?#", host_start);
  size_t at = out.rfind('@', host_end == std::string::npos ? out.size() : host_end);
  if (at != std::string::npos && at >= host_start) {
    out.replace(host_start, at - host_start, "***");
  }
  size_t q = out.find('?');
  if (q == std::string::npos) return out;
  std::string query = out.substr(q + 1), fragment;
  size_t hash = query.find('#');
  if (hash != std::string::npos) {
    fragment = query.substr(hash);
    query.resize(hash);
  }
  std::string rebuilt;
  size_t pos = 0;
  while (pos <= query.size()) {
    size_t amp = query.find('&', pos);
    std::string item = query.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
    size_t eq = item.find('=');
    if (eq != std::string::npos && SecretName(item.substr(0, eq)))
      item = item.substr(0, eq) + "=***";
    rebuilt += (rebuilt.empty() && pos == 0 ? "" : "&") + item;
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
  return out.substr(0, q + 1) + rebuilt + fragment;
}

}  // namespace tala
