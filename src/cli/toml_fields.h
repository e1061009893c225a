#pragma once
// Typed reads of tala.toml values for the tables each command owns ([target], [ci], [serve]),
// with errors that name file:line and the key.

#include <toml++/toml.h>

#include <string>

#include "tala/status.h"

namespace tala::cli {

// "tala.toml:12: serve.sample".
inline std::string Where(const std::string& path, const toml::node& n, const std::string& key) {
  return path + ":" + std::to_string(n.source().begin.line) + ": " + key;
}

// `out` from the node, or kInvalidArgument "FILE:LINE: KEY: expected EXPECTED".
template <typename T>
Status Read(const std::string& path, const toml::node& n, const std::string& key, T& out,
            const char* expected) {
  if (auto v = n.value<T>()) {
    out = *v;
    return OkStatus();
  }
  return InvalidArgument(Where(path, n, key) + ": expected " + expected);
}

}  // namespace tala::cli
