#include "core/hash.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "fs/file_digest.h"
#include "support/temp_dir.h"

namespace tala {
namespace {

// FIPS 180-2 test vectors: the empty string, "abc", the 448-bit message (two blocks).
TEST(Sha256Test, MatchesPublishedVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, LengthsAroundTheBlockBoundaryDiffer) {
  std::string prev;
  for (int n = 50; n < 70; ++n) {
    std::string h = Sha256Hex(std::string(n, 'x'));
    EXPECT_EQ(h.size(), 64u);
    EXPECT_NE(h, prev);
    prev = h;
  }
}

// A file's digest (OpenSSL's) equals the digest of its text (ours), across buffer refills.
TEST(Sha256Test, AFilesDigestIsItsTexts) {
  testing::TempDir dir;
  for (size_t n : {size_t{0}, size_t{3}, size_t{64}, size_t{(1 << 20) + 7}}) {
    std::string text;
    for (size_t i = 0; i < n; ++i) text += static_cast<char>('a' + i % 23);
    const std::string path = dir.Write("f" + std::to_string(n), text);
    auto digest = fs::FileSha256(path);
    ASSERT_TRUE(digest.has_value());
    EXPECT_EQ(*digest, Sha256Hex(text)) << n;
  }
  EXPECT_FALSE(fs::FileSha256(dir.path() + "/missing").has_value());
}

// A settled file's digest is remembered by its version; any later change, even one that keeps
// its size and sets its modification time back, gives the new digest.
TEST(Sha256Test, ARememberedDigestFollowsEveryChange) {
  using std::chrono::milliseconds;
  testing::TempDir dir;
  const std::string path = dir.Write("rows.jsonl", "{\"id\": 1}\n");
  struct stat written;
  ASSERT_EQ(stat(path.c_str(), &written), 0);
  // Past one tick of the file system's clock (at most 10 ms on Linux), so that it is settled
  // for a 20 ms threshold and the next write gets other times.
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(*fs::FileSha256(path, milliseconds(20)), Sha256Hex("{\"id\": 1}\n"));
  EXPECT_EQ(*fs::FileSha256(path, milliseconds(20)), Sha256Hex("{\"id\": 1}\n"));
  std::ofstream(path) << "{\"id\": 2}\n";  // the same size
  const timespec times[2] = {written.st_atim, written.st_mtim};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);  // and the same mtime as before
  EXPECT_EQ(*fs::FileSha256(path, milliseconds(20)), Sha256Hex("{\"id\": 2}\n"));
  std::ofstream(path, std::ios::app) << "{\"id\": 3}\n";
  EXPECT_EQ(*fs::FileSha256(path, milliseconds(20)), Sha256Hex("{\"id\": 2}\n{\"id\": 3}\n"));
}

}  // namespace
}  // namespace tala
