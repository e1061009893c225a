#include "analysis/diagnosis.h"

#include <gtest/gtest.h>

namespace tala::analysis {
namespace {

// newcomer-round4.md N12: 13 of 30 rows fail at the retriever (ranking noise 7, misses 6) and 10
// at the generator (not grounded 8, off-topic 2). The verdict named the generator, by its
// largest single category, under a picture that showed the retriever failing more rows.
TEST(DiagnosisTest, N12_ThePrincipalFailureIsInTheHalfThatFailsMostRows) {
  std::map<Diagnosis, int64_t> rows = {{Diagnosis::kRankingNoise, 7},
                                       {Diagnosis::kRetrieverMiss, 6},
                                       {Diagnosis::kGeneratorNotGrounded, 8},
                                       {Diagnosis::kOffTopic, 2},
                                       {Diagnosis::kHealthy, 7}};
  EXPECT_EQ(PrincipalFailure(rows), Diagnosis::kRankingNoise);
  rows[Diagnosis::kOffTopic] = 6;  // the generator now fails 14 rows
  EXPECT_EQ(PrincipalFailure(rows), Diagnosis::kGeneratorNotGrounded);
  rows[Diagnosis::kOffTopic] = 5;  // a tie, 13 and 13: fix retrieval first
  EXPECT_EQ(PrincipalFailure(rows), Diagnosis::kRankingNoise);
  EXPECT_EQ(PrincipalFailure({{Diagnosis::kHealthy, 5}}), Diagnosis::kHealthy);
}

// reliability/serve finding 4: a row with no contexts has no grounding and no retrieval score;
// a good relevance alone does not make it healthy.
TEST(DiagnosisTest, ARowWhoseGroundingWasNotScoredIsNeverHealthy) {
  DiagnosisRule rule;
  EXPECT_EQ(Diagnose({{"response_relevancy", 0.9}}, rule), Diagnosis::kNotDiagnosed);
  EXPECT_EQ(Diagnose({{"response_relevancy", 0.1}}, rule), Diagnosis::kOffTopic);
  EXPECT_EQ(Diagnose({{"response_relevancy", 0.9}, {"faithfulness", 1.0}}, rule),
            Diagnosis::kHealthy);
  EXPECT_EQ(Diagnose({}, rule), Diagnosis::kNotDiagnosed);
}

// newcomer-round4.md N16 (issue 57): with no reference, an answer its chunks do not support is
// what a retriever miss looks like too. Only the chunks' relevance to the question tells the
// halves apart; without it the cause is unknown, never the generator's.
TEST(DiagnosisTest, N16_AnUnsupportedAnswerWithoutAReferenceIsNeverBlamedOnTheGeneratorUnchecked) {
  EXPECT_EQ(Diagnose({{"faithfulness", 0.1}, {"response_relevancy", 0.9}}), Diagnosis::kUnknown);
  EXPECT_EQ(Diagnose({{"faithfulness", 0.1}, {"context_relevance", 0.2}}),
            Diagnosis::kRetrieverMissInferred);
  EXPECT_EQ(Diagnose({{"faithfulness", 0.1}, {"context_relevance", 0.9}}),
            Diagnosis::kGeneratorNotGrounded);
  // With a reference, recall and precision decide, as before.
  EXPECT_EQ(Diagnose({{"faithfulness", 0.1}, {"context_recall", 1.0}, {"context_relevance", 0.1}}),
            Diagnosis::kGeneratorNotGrounded);
  EXPECT_EQ(Diagnose({{"faithfulness", 0.1}, {"id_based_context_recall", 0.0}}),
            Diagnosis::kRetrieverMiss);
  EXPECT_EQ(DiagnosisStage(Diagnosis::kRetrieverMissInferred), "retriever");
  EXPECT_EQ(DiagnosisStage(Diagnosis::kUnknown), "");
  // Unknown rows blame no half: they never make the principal failure.
  EXPECT_EQ(PrincipalFailure({{Diagnosis::kUnknown, 9}, {Diagnosis::kOffTopic, 1}}),
            Diagnosis::kOffTopic);
  EXPECT_EQ(PrincipalFailure({{Diagnosis::kUnknown, 9}}), Diagnosis::kHealthy);
  EXPECT_EQ(PrincipalFailure(
                {{Diagnosis::kRetrieverMissInferred, 2}, {Diagnosis::kGeneratorNotGrounded, 2}}),
            Diagnosis::kRetrieverMissInferred);
}

}  // namespace
}  // namespace tala::analysis
