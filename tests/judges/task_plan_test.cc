#include "judges/task_plan.h"

#include <gtest/gtest.h>

#include "engine/row_scorer.h"
#include "judges/replay_judge.h"
#include "metrics/registry.h"

namespace tala::judges {
namespace {

// Wraps a judge and counts how often each task is asked.
class CountingJudge : public Judge {
 public:
  explicit CountingJudge(Judge& inner) : inner_(inner) {}
  std::string name() const override { return inner_.name(); }
  Result<Verdicts> Answer(const JudgeQuery& q) override {
    ++calls;
    for (JudgeTask t : AllJudgeTasks()) {
      if (Contains(q.tasks, t)) ++asked[static_cast<TaskSet>(t)];
    }
    return inner_.Answer(q);
  }
  int calls = 0;
  std::map<TaskSet, int> asked;

 private:
  Judge& inner_;
};

Sample FullSample() {
  Sample s;
  s.user_input = "q";
  s.response = "a";
  s.reference = "r";
  s.retrieved_contexts = std::vector<std::string>{"c1", "c2"};
  Verdicts v;
  v.chunk_relevant = std::vector<bool>{true, false};
  v.response_claims = std::vector<ClaimVerdict>{{"s", true, {0}, false, ""}};
  v.reference_claims = std::vector<ReferenceClaim>{{"g", true, true, ""}};
  s.verdicts = v;
  return s;
}

TEST(TaskPlanTest, ATaskSharedByThreeMetricsIsAskedOnce) {
  auto metrics = metrics::CreateMetrics(
      *metrics::ParseMetricSpecs("faithfulness,noise_sensitivity,factual_correctness"));
  ASSERT_TRUE(metrics.has_value());
  ReplayJudge replay;
  CountingJudge judge(replay);
  RowScorer scorer(*metrics, &judge, judge.name());
  Sample s = FullSample();
  io::RowResult row = scorer.Score(s);
  EXPECT_EQ(judge.calls, 1);
  EXPECT_EQ(judge.asked[static_cast<TaskSet>(JudgeTask::kVerifyResponseClaims)], 1);
  EXPECT_EQ(judge.asked[static_cast<TaskSet>(JudgeTask::kCheckClaimsAgainstReference)], 1);
  ASSERT_EQ(row.scores.size(), 3u);
  EXPECT_EQ(*row.scores[0].value.value, 1.0);  // faithfulness
  EXPECT_EQ(*row.scores[1].value.value, 1.0);  // noise: the one claim is wrong, from chunk 0
}

TEST(TaskPlanTest, QuestionsAreAskedOncePerKeyWithTheMostVotes) {
  auto metrics = metrics::CreateMetrics(*metrics::ParseMetricSpecs(
      "topic_adherence:mode=precision,topic_adherence:mode=recall,"
      "aspect_critic:name=rude,definition=x,aspect_critic:name=rude,definition=x,strictness=3,"
      "faithfulness"));
  ASSERT_TRUE(metrics.has_value()) << metrics.error().ToString();
  Sample s;
  s.messages = {{Message::Type::kHuman, "hi", "", {}}};
  s.reference_topics = std::vector<std::string>{"greetings"};
  RowPlan plan = PlanRow(s, *metrics);
  ASSERT_EQ(plan.questions.size(), 2u);  // faithfulness lacks its fields: no tasks either
  EXPECT_EQ(plan.questions[0].key, "topic_adherence");
  EXPECT_EQ(plan.questions[1].key, "aspect_critic(name=rude)");
  EXPECT_EQ(plan.questions[1].votes, 3);
  EXPECT_EQ(plan.tasks, static_cast<TaskSet>(JudgeTask::kAnswerQuestions));
}

TEST(TaskPlanTest, MetricsWithoutTheirFieldsAddNoTasks) {
  auto metrics = metrics::CreateMetrics(*metrics::ParseMetricSpecs("context_recall,faithfulness"));
  Sample s;
  s.user_input = "q";
  s.response = "a";
  s.retrieved_contexts = std::vector<std::string>{"c"};
  TaskSet tasks = PlanTasks(s, *metrics);
  EXPECT_TRUE(Contains(tasks, JudgeTask::kVerifyResponseClaims));
  EXPECT_FALSE(Contains(tasks, JudgeTask::kAttributeReferenceClaims));
}

TEST(TaskPlanTest, NoJudgeCallForIdOnlyMetrics) {
  auto metrics = metrics::CreateMetrics(*metrics::ParseMetricSpecs("id_based_context_precision"));
  ReplayJudge replay;
  CountingJudge judge(replay);
  Sample s;
  s.retrieved_context_ids = std::vector<std::string>{"a"};
  s.reference_context_ids = std::vector<std::string>{"a"};
  io::RowResult row = RowScorer(*metrics, &judge, judge.name()).Score(s);
  EXPECT_EQ(judge.calls, 0);
  EXPECT_EQ(*row.scores[0].value.value, 1.0);
}

class FailingJudge : public Judge {
 public:
  std::string name() const override { return "failing"; }
  Result<Verdicts> Answer(const JudgeQuery&) override {
    return Status(ErrorCode::kUnavailable, "server said 503");
  }
};

TEST(RowScorerTest, AJudgeFailureIsRecordedAsDataNotThrown) {
  auto metrics = metrics::CreateMetrics(*metrics::ParseMetricSpecs("faithfulness"));
  FailingJudge judge;
  Sample s = FullSample();
  io::RowResult row = RowScorer(*metrics, &judge, judge.name()).Score(s);
  EXPECT_EQ(row.status.code(), ErrorCode::kUnavailable);
  EXPECT_FALSE(row.scores[0].value.value.has_value());
  EXPECT_TRUE(row.scores[0].failed);
  EXPECT_NE(row.scores[0].value.reason.find("503"), std::string::npos);
}

}  // namespace
}  // namespace tala::judges
