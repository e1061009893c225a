// OpenDatasetShard: every row lands in exactly one shard, in order, with the line numbers and
// default ids of the whole file, however the bytes fall.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/readers/dataset_reader.h"
#include "support/temp_dir.h"

namespace tala::io {
namespace {

using testing::TempDir;

struct Seen {
  std::vector<std::string> ids;
  std::vector<int64_t> error_lines;
};

Seen ReadShard(const std::string& path, ShardSpec shard) {
  Seen seen;
  auto reader = OpenDatasetShard(path, {}, shard);
  EXPECT_TRUE(reader.has_value()) << reader.error().ToString();
  while (auto row = (*reader)->Next()) {
    if (row->has_value()) {
      seen.ids.push_back((*row)->id);
    } else {
      seen.error_lines.push_back(row->error().where().line);
    }
  }
  return seen;
}

// Lines of uneven length (some far longer than others), blank lines, rows without ids and two
// bad rows, with a byte order mark in front.
std::string Ragged() {
  std::string text = "\xEF\xBB\xBF";
  for (int i = 1; i <= 60; ++i) {
    if (i == 13) {
      text += "{\"user_input\": 7}\n";
      continue;
    }
    if (i == 40) {
      text += "{broken\n";
      continue;
    }
    if (i % 11 == 0) text += "\n  \n";
    std::string id = i % 3 == 0 ? "" : "\"id\":\"r" + std::to_string(i) + "\",";
    text += "{" + id + "\"user_input\":\"" + std::string(static_cast<size_t>(i * 37 % 500), 'q') +
            "\"}\n";
  }
  return text;
}

TEST(ShardReaderTest, ByteRangesCoverEveryRowOnceInOrder) {
  TempDir dir;
  std::string path = dir.Write("ragged.jsonl", Ragged());
  Seen all = ReadShard(path, {});
  ASSERT_EQ(all.ids.size(), 58u);
  for (int n = 1; n <= 9; ++n) {
    Seen joined;
    for (int i = 0; i < n; ++i) {
      Seen part = ReadShard(path, {i, n, ShardBy::kRange});
      joined.ids.insert(joined.ids.end(), part.ids.begin(), part.ids.end());
      joined.error_lines.insert(joined.error_lines.end(), part.error_lines.begin(),
                                part.error_lines.end());
    }
    EXPECT_EQ(joined.ids, all.ids) << n << " shards";
    EXPECT_EQ(joined.error_lines, all.error_lines) << n << " shards";
  }
  // Rows without an id are numbered in the whole file, blank lines not counted.
  EXPECT_EQ(all.ids[2], "3");
  EXPECT_EQ(all.error_lines.size(), 2u);
}

TEST(ShardReaderTest, HashShardsPartitionTheRowsByIdAndKeepTheirPositions) {
  TempDir dir;
  std::string path = dir.Write("ragged.jsonl", Ragged());
  Seen all = ReadShard(path, {});
  std::vector<std::string> joined;
  size_t errors = 0;
  for (int i = 0; i < 4; ++i) {
    auto reader = OpenDatasetShard(path, {}, {i, 4, ShardBy::kHash});
    ASSERT_TRUE(reader.has_value());
    int64_t last = 0;
    while (auto row = (*reader)->Next()) {
      EXPECT_GT((*reader)->position(), last);  // rising: the merge interleaves by it
      last = (*reader)->position();
      if (!row->has_value()) {
        ++errors;
        continue;
      }
      EXPECT_EQ(ShardOfId((*row)->id, 4), i);
      joined.push_back((*row)->id);
    }
  }
  std::sort(joined.begin(), joined.end());
  std::vector<std::string> expected = all.ids;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(joined, expected);
  EXPECT_EQ(errors, 2u);
}

TEST(ShardReaderTest, AShardOfStdinIsRefused) {
  EXPECT_EQ(OpenDatasetShard("-", {}, {0, 2, ShardBy::kRange}).error().code(),
            ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace tala::io
