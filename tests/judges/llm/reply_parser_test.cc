#include "judges/llm/reply_parser.h"

#include <gtest/gtest.h>

namespace tala::judges::llm {
namespace {

TEST(ReplyParserTest, ReadsJsonInsideACodeFenceAndProse) {
  auto claims = ParseResponseClaims(
      "Sure! Here you go:\n```json\n{\"claims\": [{\"claim\": \"A.\", \"supported_by\": [2, 2], "
      "\"correct\": true, \"reason\": \"\"}]}\n```\nHope this helps.",
      {true, true}, 3);
  ASSERT_TRUE(claims.has_value()) << claims.error().ToString();
  ASSERT_EQ(claims->size(), 1u);
  EXPECT_EQ((*claims)[0].text, "A.");
  EXPECT_EQ((*claims)[0].supported_by, std::vector<int>{1});  // 0-based, duplicate dropped
  EXPECT_TRUE(*(*claims)[0].supported);
  EXPECT_TRUE(*(*claims)[0].correct);
}

TEST(ReplyParserTest, AnEmptyChunkListMeansUnsupported) {
  auto claims =
      ParseResponseClaims(R"({"claims":[{"claim":"B.","supported_by":[]}]})", {true, false}, 2);
  ASSERT_TRUE(claims.has_value());
  EXPECT_FALSE(*(*claims)[0].supported);
  EXPECT_FALSE((*claims)[0].correct.has_value());
}

TEST(ReplyParserTest, NamesTheFieldAtFault) {
  auto out_of_range =
      ParseResponseClaims(R"({"claims":[{"claim":"B.","supported_by":[7]}]})", {true, false}, 5);
  ASSERT_FALSE(out_of_range.has_value());
  EXPECT_EQ(out_of_range.error().code(), ErrorCode::kBadReply);
  EXPECT_NE(
      out_of_range.error().message().find("claims[0].supported_by: chunk 7 is out of range 1..5"),
      std::string::npos);
  auto missing = ParseResponseClaims(R"({"claims":[{"claim":"B."}]})", {false, true}, 5);
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message().find("claims[0]: missing field \"correct\""),
            std::string::npos);
  auto wrong_type =
      ParseReferenceClaims(R"({"claims":[{"claim":"B.","attributed":"yes"}]})", {true, false});
  ASSERT_FALSE(wrong_type.has_value());
  EXPECT_NE(wrong_type.error().message().find("claims[0].attributed: expected true or false"),
            std::string::npos);
}

TEST(ReplyParserTest, RejectsProseAndTruncatedJson) {
  EXPECT_EQ(ParseEntities("I think the entities are Paris and 1889.").error().code(),
            ErrorCode::kBadReply);
  auto cut = ParseQuestions(R"({"questions": ["What is", "Who)", 2);
  ASSERT_FALSE(cut.has_value());
  EXPECT_EQ(cut.error().code(), ErrorCode::kBadReply);
}

TEST(ReplyParserTest, ChunkRatingsMustCoverEachChunkOnce) {
  auto ok = ParseChunkRatings(
      R"({"chunks":[{"chunk":4,"for_reference":false},{"chunk":3,"for_reference":true}]})",
      {true, false}, 2, 4);
  ASSERT_TRUE(ok.has_value()) << ok.error().ToString();
  EXPECT_EQ(ok->for_reference, (std::vector<bool>{true, false}));
  auto short_list =
      ParseChunkRatings(R"({"chunks":[{"chunk":1,"for_reference":true}]})", {true, false}, 0, 3);
  ASSERT_FALSE(short_list.has_value());
  EXPECT_NE(short_list.error().message().find("expected 3 ratings"), std::string::npos);
  auto repeated = ParseChunkRatings(
      R"({"chunks":[{"chunk":1,"for_reference":true},{"chunk":1,"for_reference":true}]})",
      {true, false}, 0, 2);
  EXPECT_FALSE(repeated.has_value());
}

TEST(ReplyParserTest, QuestionsNeedTheCountAskedFor) {
  auto ok = ParseQuestions(R"({"questions":["a?","b?"],"noncommittal":true})", 2);
  ASSERT_TRUE(ok.has_value());
  EXPECT_TRUE(ok->noncommittal);
  EXPECT_FALSE(ParseQuestions(R"({"questions":["a?"],"noncommittal":false})", 2).has_value());
}

}  // namespace
}  // namespace tala::judges::llm
