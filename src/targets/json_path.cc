#include "targets/json_path.h"

#include <charconv>
#include <string>

namespace tala::targets {

namespace {
const nlohmann::json* Step(const nlohmann::json* at, const std::string& key) {
  if (at->is_object()) {
    auto it = at->find(key);
    return it == at->end() ? nullptr : &*it;
  }
  if (at->is_array()) {
    size_t index = 0;
    auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), index);
    if (error != std::errc() || end != key.data() + key.size() || index >= at->size()) {
      return nullptr;
    }
    return &(*at)[index];
  }
  return nullptr;
}

// A pointer token with ~1 and ~0 decoded.
std::string Unescape(std::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[++i] == '0' ? '~' : '/';
    } else {
      out += token[i];
    }
  }
  return out;
}
}  // namespace

const nlohmann::json* FindPath(const nlohmann::json& root, std::string_view path) {
  const nlohmann::json* at = &root;
  if (path.empty()) return at;
  const bool pointer = path.front() == '/';
  const char sep = pointer ? '/' : '.';
  size_t start = pointer ? 1 : 0;
  while (at != nullptr && start <= path.size()) {
    size_t end = path.find(sep, start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view token = path.substr(start, end - start);
    at = Step(at, pointer ? Unescape(token) : std::string(token));
    start = end + 1;
  }
  return at;
}

}  // namespace tala::targets
