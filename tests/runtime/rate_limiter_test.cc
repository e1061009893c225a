#include "runtime/rate_limiter.h"

#include <gtest/gtest.h>

namespace tala::runtime {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(TokenBucketTest, UnlimitedNeverWaits) {
  ManualClock clock;
  TokenBucket b(0, clock.Now());
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(b.ReadyAt(1e6, clock.Now()), clock.Now());
    b.Take(1e6, clock.Now());
  }
}

TEST(TokenBucketTest, SixtyPerMinuteBurstsSixThenOnePerSecond) {
  ManualClock clock;
  TokenBucket b(60, clock.Now());  // capacity: a tenth of a minute's allowance
  for (int i = 0; i < 6; ++i) {
    ASSERT_EQ(b.ReadyAt(1, clock.Now()), clock.Now()) << i;
    b.Take(1, clock.Now());
  }
  TimePoint next = b.ReadyAt(1, clock.Now());
  EXPECT_NEAR(std::chrono::duration<double>(next - clock.Now()).count(), 1.0, 1e-6);
  clock.Advance(milliseconds(500));
  EXPECT_GT(b.ReadyAt(1, clock.Now()), clock.Now());
  clock.Advance(milliseconds(501));
  EXPECT_EQ(b.ReadyAt(1, clock.Now()), clock.Now());
}

TEST(TokenBucketTest, AnOversizedCostWaitsForAFullBucketAndLeavesDebt) {
  ManualClock clock;
  TokenBucket b(600, clock.Now());  // capacity 60
  b.Take(60, clock.Now());
  TimePoint at = b.ReadyAt(500, clock.Now());
  EXPECT_NEAR(std::chrono::duration<double>(at - clock.Now()).count(), 6.0, 1e-6);
  clock.SleepUntil(at);
  b.Take(500, clock.Now());
  EXPECT_LT(b.level(), 0);
  clock.Advance(seconds(10));  // pays back 100 of the 440 owed
  EXPECT_GT(b.ReadyAt(1, clock.Now()), clock.Now());
}

TEST(RateLimiterTest, WaitsForWhicheverLimitIsTighter) {
  ManualClock clock;
  RateLimiter limiter(6000, 600, clock.Now());  // 600 tokens/min: capacity 60 tokens
  limiter.Take(50, clock.Now());
  TimePoint at = limiter.ReadyAt(20, clock.Now());
  EXPECT_NEAR(std::chrono::duration<double>(at - clock.Now()).count(), 1.0, 1e-6);
  limiter.AdjustTokens(-40);  // the call used 40 fewer tokens than estimated
  EXPECT_EQ(limiter.ReadyAt(20, clock.Now()), clock.Now());
}

}  // namespace
}  // namespace tala::runtime
