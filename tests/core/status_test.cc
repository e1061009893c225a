#include "tala/status.h"

#include <gtest/gtest.h>

namespace tala {
namespace {

TEST(StatusTest, DataErrorNamesFileLineAndField) {
  Status s = DataError({"data.jsonl", 17, 0, "retrieved_contexts"},
                       "expected an array of strings, got a string");
  EXPECT_EQ(
      s.ToString(),
      "data.jsonl:17: field \"retrieved_contexts\": expected an array of strings, got a string");
  EXPECT_EQ(s.code(), ErrorCode::kDataError);
}

TEST(StatusTest, ColumnIsShownWhenKnown) {
  EXPECT_EQ(DataError({"a.csv", 3, 9, ""}, "bad").ToString(), "a.csv:3:9: bad");
}

TEST(StatusTest, OtherCodesArePrefixedWithTheirName) {
  EXPECT_EQ(IoError("cannot open x").ToString(), "i/o error: cannot open x");
  EXPECT_TRUE(OkStatus().ok());
}

Result<int> Half(int x) {
  if (x % 2) return InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  TALA_ASSIGN_OR_RETURN(int h, Half(x));
  TALA_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(StatusTest, AssignOrReturnPropagatesTheFirstError) {
  EXPECT_EQ(*Quarter(8), 2);
  ASSERT_FALSE(Quarter(6).has_value());
  EXPECT_EQ(Quarter(6).error().message(), "odd");
}

}  // namespace
}  // namespace tala
