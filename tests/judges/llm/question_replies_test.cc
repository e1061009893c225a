// Strict reading of the replies to the metrics' own questions: every fault is a kBadReply that
// names the field, so the runtime can ask for a repair; good replies give typed answers.

#include "judges/llm/question_replies.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tala::judges::llm {
namespace {

JudgeQuestion Q(JudgeQuestion::Kind kind, std::string key) {
  JudgeQuestion q;
  q.kind = kind;
  q.key = std::move(key);
  return q;
}

void ExpectBad(const Status& s, const std::string& needle) {
  EXPECT_EQ(s.code(), ErrorCode::kBadReply) << s.ToString();
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}

TEST(QuestionRepliesTest, CriteriaAreAnsweredOnceEachAndInRange) {
  JudgeQuestion verdict = Q(JudgeQuestion::Kind::kVerdict, "harm");
  JudgeQuestion score = Q(JudgeQuestion::Kind::kScore, "clarity");
  score.lo = 1;
  score.hi = 5;
  JudgeQuestion choice = Q(JudgeQuestion::Kind::kChoice, "tone");
  choice.choices = {"formal", "casual"};
  JudgeQuestion ranking = Q(JudgeQuestion::Kind::kRanking, "order");
  std::vector<const JudgeQuestion*> asked = {&verdict, &score, &choice, &ranking};

  auto good = ParseCriteria(
      R"(```json
{"results": [{"id": "clarity", "reason": "ok", "score": 4}, {"id": "harm", "verdict": "0"},
 {"id": "tone", "choice": "casual"}, {"id": "order", "ranking": [2, 1, 3]}]}
```)",
      asked, 3);
  ASSERT_TRUE(good.has_value()) << good.error().ToString();
  EXPECT_EQ((*good)[0].values, std::vector<double>{0});  // in the order asked, not replied
  EXPECT_EQ((*good)[1].values, std::vector<double>{4});
  EXPECT_EQ((*good)[1].reason, "ok");
  EXPECT_EQ((*good)[2].label, "casual");
  EXPECT_EQ((*good)[3].values, (std::vector<double>{1, 0, 2}));  // 0-based indices

  auto reply = [](const std::string& results) { return "{\"results\": [" + results + "]}"; };
  const std::string rest =
      R"({"id": "tone", "choice": "formal"}, {"id": "order", "ranking": [1, 2, 3]})";
  ExpectBad(ParseCriteria(reply(R"({"id": "harm", "verdict": 1}, )" + rest), asked, 3).error(),
            "no result for \"clarity\"");
  ExpectBad(ParseCriteria(
                reply(R"({"id": "harm", "verdict": 2}, {"id": "clarity", "score": 4}, )" + rest),
                asked, 3)
                .error(),
            "results[0].verdict");
  ExpectBad(ParseCriteria(
                reply(R"({"id": "harm", "verdict": 1}, {"id": "clarity", "score": 6}, )" + rest),
                asked, 3)
                .error(),
            "score 6 is outside the scale 1..5");
  ExpectBad(ParseCriteria(
                reply(R"({"id": "harm", "verdict": 1}, {"id": "clarity", "score": 4.5}, )" + rest),
                asked, 3)
                .error(),
            "whole number");
  ExpectBad(ParseCriteria(reply(R"({"id": "harm", "verdict": 1}, {"id": "harm", "verdict": 1})"),
                          asked, 3)
                .error(),
            "answered twice");
  ExpectBad(ParseCriteria(reply(R"({"id": "spam", "verdict": 1})"), asked, 3).error(),
            "not a criterion asked");
  ExpectBad(
      ParseCriteria(
          reply(R"({"id": "harm", "verdict": 1}, {"id": "clarity", "score": 4}, )"
                R"({"id": "tone", "choice": "Formal"}, {"id": "order", "ranking": [1, 2, 3]})"),
          asked, 3)
          .error(),
      "not one of the choices");
  ExpectBad(
      ParseCriteria(
          reply(R"({"id": "harm", "verdict": 1}, {"id": "clarity", "score": 4}, )"
                R"({"id": "tone", "choice": "formal"}, {"id": "order", "ranking": [1, 1, 3]})"),
          asked, 3)
          .error(),
      "ranking");
  ExpectBad(ParseCriteria("I think it is fine.", asked, 3).error(), "");
}

TEST(QuestionRepliesTest, RatingsKeepToTheirScale) {
  JudgeQuestion accuracy = Q(JudgeQuestion::Kind::kRating, "answer_accuracy");
  accuracy.definition = "answer_accuracy";
  JudgeQuestion relevance = Q(JudgeQuestion::Kind::kRating, "context_relevance");
  relevance.definition = "context_relevance";
  EXPECT_EQ(*ParseRating(R"({"rating": 4})", accuracy), 4);
  ExpectBad(ParseRating(R"({"rating": 3})", accuracy).error(), "0, 2, 4");
  EXPECT_EQ(*ParseRating(R"({"rating": "1"})", relevance), 1);
  ExpectBad(ParseRating(R"({"rating": 4})", relevance).error(), "0, 1, 2");
  ExpectBad(ParseRating(R"({"score": 1})", relevance).error(), "missing field \"rating\"");
}

TEST(QuestionRepliesTest, GoalTopicsSqlAndSummaries) {
  auto goal =
      ParseGoal(R"({"user_goal": "book", "end_state": "booked", "reason": "r", "verdict": "1"})");
  ASSERT_TRUE(goal.has_value());
  EXPECT_EQ(goal->values, std::vector<double>{1});
  EXPECT_NE(goal->reason.find("goal: book; end state: booked"), std::string::npos);
  ExpectBad(ParseGoal(R"({"verdict": 3})").error(), "verdict");

  auto topics =
      ParseTopics(R"({"topics": [{"topic": "hours", "answered": true, "in_reference": false}]})");
  ASSERT_TRUE(topics.has_value());
  EXPECT_EQ(topics->items[0].flags.at("in_reference"), false);
  ExpectBad(ParseTopics(R"({"topics": [{"topic": "hours", "answered": true}]})").error(),
            "topics[0]: missing field \"in_reference\"");

  EXPECT_EQ(ParseSqlEquivalence(R"({"equivalent": true})")->values, std::vector<double>{1});
  ExpectBad(ParseSqlEquivalence(R"({"equivalent": "yes"})").error(), "equivalent");

  EXPECT_EQ(ParseSummaryQuestions(R"({"keyphrases": [], "questions": ["a?", "b?"]})")->size(), 2u);
  ExpectBad(ParseSummaryQuestions(R"({"questions": []})").error(), "at least one");
  EXPECT_EQ(*ParseSummaryAnswers(R"({"answers": [true, 0]})", 2), (std::vector<bool>{true, false}));
  ExpectBad(ParseSummaryAnswers(R"({"answers": [true]})", 2).error(), "expected 2 answers");

  ExpectBad(ParseGEvalSteps(R"({"steps": []})").error(), "at least one");
  JudgeQuestion g = Q(JudgeQuestion::Kind::kGEval, "g");
  g.lo = 1;
  g.hi = 10;
  EXPECT_EQ(ParseGEvalScore(R"({"reason": "r", "score": 7})", g)->values, std::vector<double>{7});
  ExpectBad(ParseGEvalScore(R"({"score": 11})", g).error(), "11 is outside the scale 1..10");
}

TEST(QuestionRepliesTest, PackedRepliesAndTheWeightedScore) {
  http::ChatReply reply;
  reply.text = R"({"reason": "fine", "score": 7})";
  reply.more_choices = {"second"};
  size_t at = reply.text.find('7');
  reply.number_tokens = {{at,
                          "7",
                          {{"7", std::log(0.5)},
                           {"8", std::log(0.25)},
                           {"x", 0.0},
                           {"6", std::log(0.25)},
                           {"42", std::log(0.9)}}}};
  auto packed = UnpackReply(PackReply(reply));
  ASSERT_TRUE(packed.has_value());
  EXPECT_EQ(packed->choices, (std::vector<std::string>{reply.text, "second"}));
  ASSERT_EQ(ScoreOffset(packed->choices[0]), at);
  // 42 is outside 1..10 and "x" is no number: (0.5·7 + 0.25·8 + 0.25·6) / 1 = 7.
  auto weighted = WeightedNumber(packed->number_tokens, at, 1, 10);
  ASSERT_TRUE(weighted.has_value());
  EXPECT_NEAR(*weighted, 7.0, 1e-12);
  EXPECT_FALSE(WeightedNumber(packed->number_tokens, at + 5, 1, 10).has_value());
  ExpectBad(UnpackReply(R"({"reason": "not packed"})").error(), "not a packed reply");
}

}  // namespace
}  // namespace tala::judges::llm
