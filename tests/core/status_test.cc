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

// F13/F17: a message is shown as written, not behind a code name like "i/o error:".
TEST(StatusTest, OnlyInternalErrorsArePrefixedWithTheirName) {
  EXPECT_EQ(IoError("cannot open x").ToString(), "cannot open x");
  EXPECT_EQ(InvalidArgument("bad flag").ToString(), "bad flag");
  EXPECT_EQ(Internal("a bug").ToString(), "internal error: a bug");
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
