#include "fs/file_digest.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/hash.h"

namespace tala::fs {

namespace {

// What tells one version of a file from another without reading it: which file, how long, and
// when its content and its inode last changed.
struct Version {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  timespec modified{}, changed{};
  bool operator==(const Version& o) const {
    return device == o.device && inode == o.inode && size == o.size &&
           modified.tv_sec == o.modified.tv_sec && modified.tv_nsec == o.modified.tv_nsec &&
           changed.tv_sec == o.changed.tv_sec && changed.tv_nsec == o.changed.tv_nsec;
  }
};

bool VersionOf(std::FILE* f, Version& v) {
  struct stat st;
  if (fstat(fileno(f), &st) != 0) return false;
  v = {st.st_dev, st.st_ino, st.st_size, st.st_mtim, st.st_ctim};
  return true;
}

// Each shard of a sharded run hashes the whole dataset, and a notebook evaluates the same file
// again and again: a digest is kept per file version. A version is only kept once both its
// times are well behind the clock when the hashing began (git's "racily clean" rule): file
// systems may stamp times coarsely (a few milliseconds on ext4 before Linux 6.6), so a file
// rewritten within one tick of an earlier write can keep its times, and only a version older
// than any tick is safe to recognise. The change time counts too: a modification time set back
// by hand (touch -d) moves it.
constexpr size_t kVersionsKept = 64;
std::mutex g_mutex;
std::map<std::pair<dev_t, ino_t>, std::pair<Version, std::string>> g_digests;

bool Settled(const Version& v, const timespec& began, std::chrono::nanoseconds settled) {
  auto ns = [](const timespec& t) {
    return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
  };
  return ns(v.modified) + settled < ns(began) && ns(v.changed) + settled < ns(began);
}

std::string Hex(const unsigned char* digest, unsigned int length) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

// The SHA-256 (hex) of the rest of `f`, read in large chunks.
Result<std::string> Sha256Of(std::FILE* f, const std::string& path) {
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    return Internal("cannot start a SHA-256 digest");
  }
  std::vector<char> buf(1 << 20);
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
    if (EVP_DigestUpdate(ctx.get(), buf.data(), n) != 1) return Internal("SHA-256 update failed");
  }
  if (std::ferror(f)) return IoError("cannot read " + path + ": " + std::strerror(errno));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1) {
    return Internal("SHA-256 final failed");
  }
  return Hex(digest, length);
}

}  // namespace

// OpenSSL's SHA-256 (SHA extensions or vector code where the CPU has them): every run hashes its
// whole dataset, and each shard of a sharded run hashes it again, so the file's hash is worth
// the fastest implementation there is. Equal to core's Sha256, which hashes short texts.
Result<std::string> FileSha256(const std::string& path, std::chrono::nanoseconds settled) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return IoError("cannot read " + path + ": " + std::strerror(errno));
  timespec began{};
  clock_gettime(CLOCK_REALTIME, &began);
  Version before;
  const bool known = VersionOf(f.get(), before);
  if (known) {
    std::lock_guard lock(g_mutex);
    auto it = g_digests.find({before.device, before.inode});
    if (it != g_digests.end() && it->second.first == before) return it->second.second;
  }
  TALA_ASSIGN_OR_RETURN(std::string out, Sha256Of(f.get(), path));
  Version after;
  if (known && VersionOf(f.get(), after) && after == before && Settled(before, began, settled)) {
    std::lock_guard lock(g_mutex);
    if (g_digests.size() >= kVersionsKept) g_digests.clear();
    g_digests[{before.device, before.inode}] = {before, out};
  }
  return out;
}

std::string Sha256OfBytes(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    return Sha256Hex(bytes);  // OpenSSL failed to start: the portable one gives the same
  }
  return Hex(digest, length);
}

}  // namespace tala::fs
