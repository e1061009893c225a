#pragma once
// Stable content hashing for cache keys and the run manifest: SHA-256, hex-encoded. Pure and
// thread-safe.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace tala {

// Lower-case hex SHA-256 of `data` (64 characters).
std::string Sha256Hex(std::string_view data);

// SHA-256 over data given piece by piece (a whole file read in chunks).
class Sha256 {
 public:
  Sha256();
  void Update(std::string_view data);
  std::string HexDigest();  // ends the hash: call once

 private:
  std::array<uint32_t, 8> h_;
  unsigned char block_[64];
  size_t used_ = 0;      // bytes in block_
  uint64_t length_ = 0;  // bytes hashed so far
};

// The first 8 bytes of `data`'s SHA-256 as a big-endian number: a hash of an id that is the same
// on every machine and in every version (shard membership, serve's sample).
uint64_t Sha256Prefix64(std::string_view data);

// FNV-1a, 64 bits: a fast hash of short texts (tokens, shingles) for in-memory tables, where
// SHA-256 would cost too much and nothing is kept.
inline uint64_t Fnv1a64(std::string_view data) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace tala
