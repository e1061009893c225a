#include "fs/file_digest.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/hash.h"

namespace tala::fs {

Result<std::string> FileSha256(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return IoError("cannot read " + path + ": " + std::strerror(errno));
  Sha256 hash;
  std::vector<char> buf(1 << 20);
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f.get())) > 0) hash.Update({buf.data(), n});
  if (std::ferror(f.get())) return IoError("cannot read " + path + ": " + std::strerror(errno));
  return hash.HexDigest();
}

}  // namespace tala::fs
