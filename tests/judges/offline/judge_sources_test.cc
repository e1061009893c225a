// Issue 52's readings that are rules, not fitted weights: a question's parts, hedges, an opening
// pronoun, and the reason response_relevancy gives for the offline reading.
#include <gtest/gtest.h>

#include "core/text/stemmer.h"
#include "engine/row_scorer.h"
#include "judges/offline/answer_relevance.h"
#include "judges/offline/hedges.h"
#include "judges/offline/offline_judge.h"
#include "judges/offline/question_parts.h"
#include "metrics/registry.h"

namespace tala::judges::offline {
namespace {

using Parts = std::vector<std::string>;

TEST(QuestionPartsTest, SplitsWhereASecondAskBegins) {
  EXPECT_EQ(QuestionParts("When was PharmaCann founded and what is its headquarters location?"),
            (Parts{"When was PharmaCann founded", "what is its headquarters location?"}));
  EXPECT_EQ(QuestionParts("Who wrote it, and when was it published?"),
            (Parts{"Who wrote it", "when was it published?"}));
  EXPECT_EQ(QuestionParts("How much is a day pass? Is it valid on trams?"),
            (Parts{"How much is a day pass?", "Is it valid on trams?"}));
}

TEST(QuestionPartsTest, OneAskStaysWhole) {
  EXPECT_EQ(QuestionParts("Who was born first, Ada Lovelace or Charles Babbage?"),
            (Parts{"Who was born first, Ada Lovelace or Charles Babbage?"}));
  EXPECT_EQ(QuestionParts("What is the difference between a day pass and a single ticket?"),
            (Parts{"What is the difference between a day pass and a single ticket?"}));
  // "and who" naming a second person inside one ask would be too short to stand alone.
  EXPECT_EQ(QuestionParts("Which film starred Tom and who?"),
            (Parts{"Which film starred Tom and who?"}));
}

TEST(HedgesTest, AHedgedClaimIsAClaim) {
  EXPECT_EQ(CommittedText("I am not sure, but it is probably free on Sundays for everyone."),
            "it is free on Sundays for everyone.");
  EXPECT_EQ(CommittedText("I think admission is 12 euros. Maybe, it opens at 9."),
            "admission is 12 euros. it opens at 9.");
  EXPECT_EQ(CommittedText("I don't know. The pool opens at 9."), "The pool opens at 9.");
  EXPECT_FALSE(IsNoncommittal("I'm not sure, but it is probably free on Sundays."));
  EXPECT_TRUE(IsNoncommittal("I don't know."));
  EXPECT_TRUE(IsNoncommittal("I\xE2\x80\x99m not aware of that. Sorry!"));
  EXPECT_FALSE(IsNoncommittal("Probably Delhi."));
  // Text in any script is kept whole (a CJK sentence is no punctuation).
  EXPECT_EQ(CommittedText("日本の首都は東京です。"), "日本の首都は東京です。");
  EXPECT_FALSE(IsNoncommittal("I don't know, but 東京 is likely."));
  // "maybe" inside another word is no hedge.
  EXPECT_EQ(CommittedText("Maybelline sells mascara."), "Maybelline sells mascara.");
}

Sample Museum(const std::string& response) {
  Sample s;
  s.user_input = "Is the museum free on Sundays?";
  s.response = response;
  s.retrieved_contexts =
      std::vector<std::string>{"The museum has no free day. Admission is 12 euros every day."};
  return s;
}

double Faithfulness(const Sample& s) {
  OfflineJudge judge;
  auto metrics = metrics::CreateMetrics(*metrics::ParseMetricSpecs("faithfulness"));
  return RowScorer(*metrics, &judge, judge.name()).Score(s).scores[0].value.value.value_or(-1);
}

// The hedged hallucination of issue 52 is scored as the plain one is, not left out.
TEST(HedgesTest, AHedgedHallucinationIsScoredLikeThePlainOne) {
  const double hedged =
      Faithfulness(Museum("I am not sure, but it is probably free on Sundays for everyone."));
  const double plain = Faithfulness(Museum("It is free on Sundays for everyone."));
  EXPECT_GE(hedged, 0.0);
  EXPECT_LT(hedged, 0.5);
  EXPECT_DOUBLE_EQ(hedged, plain);
  EXPECT_EQ(Faithfulness(Museum("I don't know.")), -1);  // undefined: nothing claimed
}

TEST(PronounTest, AnOpeningPronounStandsForTheQuestionsSubject) {
  EXPECT_EQ(
      WithPronounResolved("When was the Eiffel Tower completed?", "It was completed in 1889."),
      "Eiffel Tower was completed in 1889.");
  EXPECT_EQ(WithPronounResolved("Where was Marie Curie born?", "She was born in Warsaw."),
            "Marie Curie was born in Warsaw.");
  // Named already, or nothing to name it by: as it is.
  EXPECT_EQ(WithPronounResolved("When was the Eiffel Tower completed?",
                                "It was the Eiffel Tower's engineers who finished it in 1889."),
            "It was the Eiffel Tower's engineers who finished it in 1889.");
  EXPECT_EQ(WithPronounResolved("When does the pool open?", "It opens at 9."), "It opens at 9.");
  EXPECT_EQ(WithPronounResolved("When was the Eiffel Tower completed?", "Items were sold."),
            "Items were sold.");
}

MetricValue Relevancy(const std::string& question, const std::string& response) {
  Sample s;
  s.user_input = question;
  s.response = response;
  OfflineJudge judge;
  auto metrics = metrics::CreateMetrics(*metrics::ParseMetricSpecs("response_relevancy"));
  return RowScorer(*metrics, &judge, judge.name()).Score(s).scores[0].value;
}

// N13: "It was completed in 1889." reads as the answer it is, near "In 1889.".
TEST(PronounTest, APronounSubjectAnswerIsOnTopic) {
  if (!SentenceEncoder::Available().ok()) GTEST_SKIP() << "no sentence encoder";
  const auto pronoun =
      Relevancy("When was the Eiffel Tower completed?", "It was completed in 1889.");
  const auto offtopic = Relevancy("When was the Eiffel Tower completed?",
                                  "Bananas are a good source of potassium and fibre.");
  EXPECT_GT(*pronoun.value, 0.7) << pronoun.reason;
  EXPECT_LT(*offtopic.value, 0.25) << offtopic.reason;
}

// Issue 52 item 3 and 8: the answer to one part of two scores below the answer to both, and the
// reason says what was read, naming the part left unanswered; never "generated questions".
TEST(QuestionPartsTest, APartialAnswerScoresBelowACompleteOneAndSaysWhichPart) {
  if (!SentenceEncoder::Available().ok()) GTEST_SKIP() << "no sentence encoder";
  const std::string q = "When was PharmaCann founded and what is its headquarters location?";
  const auto complete = Relevancy(
      q, "PharmaCann was founded in 2014. Its headquarters are located in Oak Brook, Illinois.");
  const auto partial = Relevancy(q,
                                 "PharmaCann was founded in 2014. PharmaCann is a leading "
                                 "pharmaceutical company that specializes in medical cannabis.");
  EXPECT_GT(*complete.value, *partial.value) << complete.reason << "\n" << partial.reason;
  EXPECT_NE(partial.reason.find("answers 1 of 2 parts"), std::string::npos) << partial.reason;
  EXPECT_NE(partial.reason.find("what is its headquarters location"), std::string::npos)
      << partial.reason;
  EXPECT_NE(complete.reason.find("answers 2 of 2 parts"), std::string::npos) << complete.reason;
  EXPECT_EQ(complete.reason.find("generated questions"), std::string::npos) << complete.reason;
}

}  // namespace
}  // namespace tala::judges::offline
