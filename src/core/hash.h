#pragma once
// Stable content hashing for cache keys and the run manifest: SHA-256, hex-encoded. Pure and
// thread-safe.

#include <string>
#include <string_view>

namespace tala {

// Lower-case hex SHA-256 of `data` (64 characters).
std::string Sha256Hex(std::string_view data);

}  // namespace tala
