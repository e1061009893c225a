#include "core/verdict_validation.h"

#include <gtest/gtest.h>

namespace tala {
namespace {

Sample FiveChunks() {
  Sample s;
  s.line = 4;
  s.user_input = "q";
  s.retrieved_contexts = std::vector<std::string>{"a", "b", "c", "d", "e"};
  return s;
}

TEST(VerdictValidationTest, RejectsChunkVerdictsOfTheWrongLength) {
  Sample s = FiveChunks();
  Verdicts v;
  v.chunk_relevant = std::vector<bool>{true, false};
  Status st = ValidateVerdicts(s, v, "d.jsonl");
  EXPECT_EQ(st.code(), ErrorCode::kDataError);
  EXPECT_EQ(st.where().field, "verdicts.chunk_relevant");
  EXPECT_EQ(st.where().line, 4);
  EXPECT_NE(st.message().find("has 2 entries but the row has 5"), std::string::npos);
}

TEST(VerdictValidationTest, RejectsASupportingChunkPastTheLast) {
  Sample s = FiveChunks();
  Verdicts v;
  v.response_claims = std::vector<ClaimVerdict>{{"c", true, {0, 5}, std::nullopt, ""}};
  Status st = ValidateVerdicts(s, v, "d.jsonl");
  EXPECT_EQ(st.where().field, "verdicts.response_claims[0].supported_by");
}

TEST(VerdictValidationTest, ComputesCosinesFromEmbeddings) {
  Sample s = FiveChunks();
  Verdicts v;
  v.generated_questions = std::vector<GeneratedQuestion>{{"g", false, std::nullopt}};
  v.embeddings["q"] = {1, 1};
  v.embeddings["g"] = {1, 0};
  ASSERT_TRUE(ValidateVerdicts(s, v, "d.jsonl").ok());
  EXPECT_NEAR(*(*v.generated_questions)[0].cosine, 0.70710678, 1e-6);
}

TEST(VerdictValidationTest, MissingEmbeddingIsADataError) {
  Sample s = FiveChunks();
  Verdicts v;
  v.generated_questions = std::vector<GeneratedQuestion>{{"g", false, std::nullopt}};
  v.embeddings["q"] = {1, 1};
  EXPECT_EQ(ValidateVerdicts(s, v, "d.jsonl").code(), ErrorCode::kDataError);
}

TEST(VerdictValidationTest, CosineOfZeroVectorIsUndefined) {
  EXPECT_FALSE(Cosine({0, 0}, {1, 0}).has_value());
  EXPECT_FALSE(Cosine({1}, {1, 0}).has_value());
  EXPECT_NEAR(*Cosine({1, 0}, {-1, 0}), -1.0, 1e-12);
}

}  // namespace
}  // namespace tala
