#include "core/hash.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tala
