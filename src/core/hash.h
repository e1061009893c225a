#pragma once
// Stable content hashing for cache keys and the run manifest: SHA-256, hex-encoded. Pure and
// thread-safe.

#include <cstdint>
#include <string>
#include <string_view>

namespace tala {

// Lower-case hex SHA-256 of `data` (64 characters).
std::string Sha256Hex(std::string_view data);

// The first 8 bytes of `data`'s SHA-256 as a big-endian number: a hash of an id that is the same
// on every machine and in every version (shard membership, serve's sample).
uint64_t Sha256Prefix64(std::string_view data);

}  // namespace tala
