// The pick (issue 53 item 3): the top needs are always in, whatever the seed; the rest is the
// seeded, traffic-weighted draw it was.
#include "testset/pick.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tala::testset {
namespace {

// A shopper log's shape: a few large intents and a long tail of small ones.
std::vector<IntentForPick> LongTail() {
  std::vector<IntentForPick> intents;
  const int64_t large[] = {120, 52, 37, 27, 20, 15, 12, 11, 10, 9};
  for (size_t i = 0; i < std::size(large); ++i) {
    intents.push_back({"large " + std::to_string(i), large[i], 3, 0});
  }
  for (int i = 0; i < 400; ++i) intents.push_back({"tail " + std::to_string(i), 2, 1, 0});
  return intents;
}

TEST(PickTest, TheLargestIntentsAreInForEverySeed) {
  const std::vector<IntentForPick> intents = LongTail();  // 1,113 questions
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    // At 50 items the default share is 1%: 11.13 questions, the seven intents above it.
    const std::vector<int64_t> count = AllocateItems(intents, 50, seed, 0.3, 0.01);
    int64_t items = 0;
    for (int64_t c : count) items += c;
    EXPECT_EQ(items, 50);
    for (size_t i = 0; i < 7; ++i) EXPECT_EQ(count[i], 1) << "seed " << seed << ", intent " << i;
  }
}

TEST(PickTest, WithoutTheShareTheDrawMayMissALargeIntent) {
  const std::vector<IntentForPick> intents = LongTail();
  bool missed = false;
  for (uint64_t seed = 1; seed <= 50 && !missed; ++seed) {
    const std::vector<int64_t> count = AllocateItems(intents, 50, seed, 0.3, 1.1);
    for (size_t i = 0; i < 7; ++i) missed = missed || count[i] == 0;
  }
  EXPECT_TRUE(missed);  // what the share is for
}

TEST(PickTest, MoreIntentsAboveTheShareThanItemsTakesTheLargest) {
  std::vector<IntentForPick> intents;
  for (int i = 0; i < 10; ++i) intents.push_back({"i" + std::to_string(i), 100 - i, 1, 0});
  const std::vector<int64_t> count = AllocateItems(intents, 3, 7, 0.3, 0.05);
  EXPECT_EQ(count, (std::vector<int64_t>{1, 1, 1, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(PickTest, FailuresStillComeBeforeTheDraw) {
  std::vector<IntentForPick> intents = LongTail();
  intents[300].failed = 2;  // a small intent whose rows failed
  const std::vector<int64_t> count = AllocateItems(intents, 20, 3, 0.3, 0.02);
  EXPECT_EQ(count[300], 1);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(count[i], 1) << i;  // 2% of 1,113: 22.3 questions
}

}  // namespace
}  // namespace tala::testset
