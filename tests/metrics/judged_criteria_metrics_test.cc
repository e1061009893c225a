// The metrics that ask the judge questions of their own: option checks, results and question
// keys, and the user-defined metrics' strict prompt templates.

#include <gtest/gtest.h>

#include "metrics/registry.h"
#include "metrics/user_metric.h"

namespace tala::metrics {
namespace {

std::unique_ptr<Metric> One(const std::string& spec) {
  auto specs = ParseMetricSpecs(spec);
  EXPECT_TRUE(specs.has_value()) << specs.error().ToString();
  auto made = CreateMetrics(*specs);
  EXPECT_TRUE(made.has_value()) << made.error().ToString();
  return made && !made->empty() ? std::move(made->front()) : nullptr;
}

TEST(MetricSpecQuotingTest, AQuotedValueKeepsItsCommasAndColons) {
  auto specs = ParseMetricSpecs(
      "aspect_critic:name=rude,definition=\"Is it rude, or curt: say so\",strictness=3,"
      "faithfulness");
  ASSERT_TRUE(specs.has_value()) << specs.error().ToString();
  ASSERT_EQ(specs->size(), 2u);
  EXPECT_EQ((*specs)[0].options.at("definition"), "Is it rude, or curt: say so");
  EXPECT_EQ((*specs)[0].options.at("strictness"), "3");
  EXPECT_EQ((*specs)[1].name, "faithfulness");
  auto open = ParseMetricSpecs("aspect_critic:name=x,definition=\"never closed");
  ASSERT_FALSE(open.has_value());
  EXPECT_NE(open.error().message().find("never closed"), std::string::npos);
}

TEST(JudgedCriteriaMetricsTest, KeysLeaveOutTheLongTexts) {
  auto aspect = One("aspect_critic:name=rude,definition=\"Is it rude?\",strictness=2");
  ASSERT_NE(aspect, nullptr);
  EXPECT_EQ(aspect->key(), "aspect_critic(name=rude,strictness=2)");
  Sample s;
  auto questions = aspect->questions(s);
  ASSERT_EQ(questions.size(), 1u);
  EXPECT_EQ(questions[0].key, "aspect_critic(name=rude)");
  EXPECT_EQ(questions[0].votes, 3) << "an even strictness is raised to the next odd one";
  EXPECT_EQ(aspect->tasks(), static_cast<TaskSet>(JudgeTask::kAnswerQuestions));

  auto known = One("aspect_critic:name=harmfulness");
  ASSERT_NE(known, nullptr);
  EXPECT_FALSE(known->questions(s)[0].definition.empty());
  auto unknown = CreateMetrics(*ParseMetricSpecs("aspect_critic:name=tone"));
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message().find("needs definition"), std::string::npos);

  auto rubric = One("rubrics_score:score1=bad,score3=fine,score2=meh");
  ASSERT_NE(rubric, nullptr);
  EXPECT_EQ(rubric->key(), "rubrics_score");
  JudgeQuestion q = rubric->questions(s)[0];
  EXPECT_EQ(q.lo, 1);
  EXPECT_EQ(q.hi, 3);
  ASSERT_EQ(q.levels.size(), 3u);
  EXPECT_EQ(q.levels[1].first, "score2_description");

  // Without a rubric: tala's reference-based wording for rows with a reference.
  auto plain = One("rubrics_score");
  Sample with_reference;
  with_reference.reference = "r";
  EXPECT_NE(plain->questions(s)[0].levels, plain->questions(with_reference)[0].levels);

  // The three modes of topic_adherence share one question.
  EXPECT_EQ(One("topic_adherence:mode=recall")->questions(s)[0].key, "topic_adherence");
  EXPECT_EQ(One("g_eval:criteria=Fluency")->key(), "g_eval(criteria=Fluency)");
}

UserMetricDef Def(std::string prompt) {
  UserMetricDef d;
  d.name = "mine";
  d.prompt = std::move(prompt);
  d.where = "tala.toml:3";
  return d;
}

TEST(UserMetricTest, ThePromptIsCheckedStrictly) {
  auto ok = MakeUserMetric(Def("Does {response} answer {user_input}? Use {{braces}}."));
  ASSERT_TRUE(ok.has_value()) << ok.error().ToString();
  EXPECT_EQ((*ok)->key(), "mine");
  EXPECT_EQ((*ok)->info().required_fields, Field::kUserInput | Field::kResponse);
  Sample s;
  JudgeQuestion q = (*ok)->questions(s)[0];
  EXPECT_EQ(q.definition, "Does the answer answer the question? Use {braces}.");
  EXPECT_EQ(q.kind, JudgeQuestion::Kind::kScore);

  auto expect_error = [](const UserMetricDef& d, const std::string& needle) {
    auto made = MakeUserMetric(d);
    ASSERT_FALSE(made.has_value());
    EXPECT_NE(made.error().message().find("tala.toml:3"), std::string::npos);
    EXPECT_NE(made.error().message().find(needle), std::string::npos) << made.error().message();
  };
  expect_error(Def("Is {answer} kind?"), "unknown slot {answer}");
  expect_error(Def("Is {response kind?"), "never closed");
  expect_error(Def("Is it } kind?"), "stray");
  expect_error(Def("   "), "is empty");
  UserMetricDef discrete = Def("Is {response} polite?");
  discrete.output = UserMetricDef::Output::kDiscrete;
  discrete.values = {"yes"};
  expect_error(discrete, "at least two values");
  UserMetricDef range = Def("How polite is {response}?");
  range.min = 5;
  range.max = 5;
  expect_error(range, "min < max");
  UserMetricDef builtin = Def("x");
  builtin.name = "faithfulness";
  expect_error(builtin, "built in");
}

TEST(UserMetricTest, DiscreteValuesCountFromTheWorstAndRankingsCorrelate) {
  UserMetricDef d = Def("Is {response} polite?");
  d.output = UserMetricDef::Output::kDiscrete;
  d.values = {"no", "partly", "yes"};
  d.direction = Direction::kLowerIsBetter;
  auto discrete = MakeUserMetric(d);
  ASSERT_TRUE(discrete.has_value());
  EXPECT_EQ((*discrete)->info().direction, Direction::kLowerIsBetter);
  Sample s;
  Verdicts v;
  v.answers["mine"].label = "partly";
  EXPECT_EQ(*(*discrete)->Score(s, v).value, 1.0);
  v.answers["mine"].label = "maybe";
  EXPECT_FALSE((*discrete)->Score(s, v).value.has_value());

  UserMetricDef r = Def("Which context helps most with {user_input}?");
  r.output = UserMetricDef::Output::kRanking;
  auto ranking = MakeUserMetric(r);
  ASSERT_TRUE(ranking.has_value());
  EXPECT_TRUE(Contains((*ranking)->info().required_fields, Field::kRetrievedContexts));
  v.answers["mine"].values = {0, 1, 2};  // the retriever's order
  EXPECT_EQ(*(*ranking)->Score(s, v).value, 1.0);
  v.answers["mine"].values = {2, 1, 0};  // reversed
  EXPECT_EQ(*(*ranking)->Score(s, v).value, -1.0);
  v.answers["mine"].values = {1, 0, 2};  // d² = 1 + 1: 1 − 6·2 / (3·8) = 0.5
  EXPECT_EQ(*(*ranking)->Score(s, v).value, 0.5);
}

}  // namespace
}  // namespace tala::metrics
