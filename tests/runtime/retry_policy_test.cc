#include "runtime/retry_policy.h"

#include <gtest/gtest.h>

namespace tala::runtime {
namespace {

using std::chrono::duration;
using std::chrono::milliseconds;
using std::chrono::seconds;

double Seconds(Duration d) { return duration<double>(d).count(); }

TEST(RetryPolicyTest, OnlyTransientFailuresAreRetried) {
  EXPECT_TRUE(IsRetryable(ErrorCode::kRateLimited));
  EXPECT_TRUE(IsRetryable(ErrorCode::kUnavailable));
  EXPECT_TRUE(IsRetryable(ErrorCode::kDeadlineExceeded));
  EXPECT_TRUE(IsRetryable(ErrorCode::kBadReply));
  EXPECT_FALSE(IsRetryable(ErrorCode::kInvalidArgument));  // 400, 401, 403
  EXPECT_FALSE(IsRetryable(ErrorCode::kNotFound));         // 404
  RetryPolicy p({});
  EXPECT_FALSE(p.Delay(ErrorCode::kInvalidArgument, 1, std::nullopt).has_value());
}

TEST(RetryPolicyTest, BackoffDoublesWithJitterUpToTheCap) {
  RetryOptions o;
  o.base_delay = milliseconds(100);
  o.max_delay = seconds(1);
  o.max_retries = 10;
  RetryPolicy p(o);
  for (int retry = 1; retry <= 10; ++retry) {
    double ceiling = std::min(1.0, 0.1 * double(1 << (retry - 1)));
    double d = Seconds(*p.Delay(ErrorCode::kUnavailable, retry, std::nullopt));
    EXPECT_GE(d, ceiling / 2 - 1e-9) << retry;
    EXPECT_LE(d, ceiling + 1e-9) << retry;
  }
  EXPECT_FALSE(p.Delay(ErrorCode::kUnavailable, 11, std::nullopt).has_value());
}

TEST(RetryPolicyTest, RetryAfterIsHonouredWithAtMostTenPercentMore) {
  RetryPolicy p({});
  for (int i = 0; i < 20; ++i) {
    double d = Seconds(*p.Delay(ErrorCode::kRateLimited, 1, seconds(3)));
    EXPECT_GE(d, 3.0);
    EXPECT_LE(d, 3.3);
  }
}

TEST(RetryPolicyTest, TheSameSeedGivesTheSameDelays) {
  RetryPolicy a({}), b({});
  for (int retry = 1; retry <= 5; ++retry) {
    EXPECT_EQ(*a.Delay(ErrorCode::kUnavailable, retry, std::nullopt),
              *b.Delay(ErrorCode::kUnavailable, retry, std::nullopt));
  }
}

TEST(ParseRetryAfterTest, ReadsSecondsDatesAndMilliseconds) {
  EXPECT_EQ(*ParseRetryAfter("120", "", 0), seconds(120));
  EXPECT_EQ(*ParseRetryAfter("1", "250", 0), milliseconds(250));  // retry-after-ms wins
  // 2026-10-21 07:28:00 UTC is 1792567680.
  EXPECT_EQ(*ParseRetryAfter("Wed, 21 Oct 2026 07:28:00 GMT", "", 1792567680 - 30), seconds(30));
  EXPECT_EQ(*ParseRetryAfter("Wed, 21 Oct 2026 07:28:00 GMT", "", 1792567680 + 99), seconds(0));
  EXPECT_FALSE(ParseRetryAfter("soon", "", 0).has_value());
  EXPECT_FALSE(ParseRetryAfter("", "", 0).has_value());
  EXPECT_FALSE(ParseRetryAfter("-5", "", 0).has_value());
}

}  // namespace
}  // namespace tala::runtime
