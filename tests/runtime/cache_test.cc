#include "runtime/cache.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/temp_dir.h"

namespace tala::runtime {
namespace {

TEST(CacheTest, StoresAndReturnsRepliesAcrossReopens) {
  tala::testing::TempDir dir;
  std::string path = dir.path() + "/sub/cache.sqlite";  // the folder is created
  {
    auto cache = Cache::Open(path, nullptr);
    ASSERT_TRUE(cache.has_value()) << cache.error().ToString();
    EXPECT_FALSE((*cache)->Get("k1").has_value());
    (*cache)->Put("k1", "gpt-4o-mini", "rate_chunks@1", {"{\"chunks\":[]}", 120, 8});
    (*cache)->Put("k2", "gpt-4o-mini", "response_claims@1", {"{}", 200, 40});
  }
  auto cache = Cache::Open(path, nullptr);
  ASSERT_TRUE(cache.has_value());
  auto hit = (*cache)->Get("k1");
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->text, "{\"chunks\":[]}");
  EXPECT_EQ(hit->prompt_tokens, 120);
  EXPECT_EQ(hit->completion_tokens, 8);
  auto stats = (*cache)->Stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->entries, 2);
  EXPECT_EQ(stats->prompt_tokens, 320);
  ASSERT_EQ(stats->by_model.size(), 1u);
  EXPECT_TRUE((*cache)->Clear().ok());
  EXPECT_EQ((*cache)->Stats()->entries, 0);
  EXPECT_FALSE((*cache)->Get("k1").has_value());
}

TEST(CacheTest, MergeCopiesTheRepliesTheCacheLacks) {
  tala::testing::TempDir dir;
  std::string a = dir.path() + "/a.sqlite", b = dir.path() + "/b.sqlite";
  {
    auto other = Cache::Open(b, nullptr);
    ASSERT_TRUE(other.has_value());
    (*other)->Put("shared", "m", "p@1", {"same", 10, 1});
    (*other)->Put("only-b", "m", "p@1", {"from b", 20, 2});
  }
  auto cache = Cache::Open(a, nullptr);
  ASSERT_TRUE(cache.has_value());
  (*cache)->Put("shared", "m", "p@1", {"same", 10, 1});
  auto added = (*cache)->MergeFrom(b);
  ASSERT_TRUE(added.has_value()) << added.error().ToString();
  EXPECT_EQ(*added, 1);
  EXPECT_EQ((*cache)->Get("only-b")->text, "from b");
  EXPECT_EQ((*cache)->Stats()->entries, 2);
  EXPECT_EQ(*(*cache)->MergeFrom(b), 0);  // again: nothing new
  EXPECT_EQ((*cache)->MergeFrom(dir.path() + "/none.sqlite").error().code(), ErrorCode::kNotFound);
  std::string text = dir.Write("notes.sqlite", "");
  EXPECT_EQ((*cache)->MergeFrom(text).error().code(), ErrorCode::kInvalidArgument);
  (*cache)->Put("after", "m", "p@1", {"still works", 1, 1});
  EXPECT_TRUE((*cache)->Get("after").has_value());
}

TEST(CacheTest, ACorruptFileIsMovedAsideAndRebuiltWithAWarning) {
  tala::testing::TempDir dir;
  // A damaged database: SQLite's header, then garbage.
  std::string path =
      dir.Write("cache.sqlite", std::string("SQLite format 3", 16) + std::string(4096, 'x'));
  std::string warning;
  auto cache = Cache::Open(path, &warning);
  ASSERT_TRUE(cache.has_value()) << cache.error().ToString();
  EXPECT_NE(warning.find("unreadable"), std::string::npos) << warning;
  EXPECT_NE(warning.find(path + ".corrupt-1"), std::string::npos) << warning;
  EXPECT_TRUE(std::filesystem::exists(path + ".corrupt-1"));
  (*cache)->Put("k", "m", "p@1", {"v", 1, 1});
  EXPECT_EQ((*cache)->Get("k")->text, "v");
}

TEST(CacheTest, AnUncreatableFileIsAClearError) {
  auto cache = Cache::Open("/proc/tala-no-such/cache.sqlite", nullptr);
  ASSERT_FALSE(cache.has_value());
  EXPECT_EQ(cache.error().code(), ErrorCode::kIoError);
  EXPECT_NE(cache.error().message().find("/proc/tala-no-such/cache.sqlite"), std::string::npos);
}

}  // namespace
// F10: a file that is not a cache (a results file, a dataset) is refused and never renamed.
TEST(CacheTest, AFileThatIsNotACacheIsRefusedAndLeftAlone) {
  tala::testing::TempDir dir;
  std::string path = dir.Write("results.jsonl", "{\"tala_manifest\":{}}\n");
  std::string warning;
  auto cache = Cache::Open(path, &warning);
  ASSERT_FALSE(cache.has_value());
  EXPECT_EQ(cache.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(cache.error().message().find("looks like JSON"), std::string::npos);
  EXPECT_EQ(dir.Read("results.jsonl"), "{\"tala_manifest\":{}}\n");
  EXPECT_FALSE(std::filesystem::exists(path + ".corrupt-1"));
}

}  // namespace tala::runtime
