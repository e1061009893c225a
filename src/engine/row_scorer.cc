#include "engine/row_scorer.h"

#include "core/judge_questions.h"
#include "judges/task_plan.h"

namespace tala {

namespace {
std::string MissingFields(const Sample& s, const Metric& m) {
  FieldSet missing = m.info().required_fields & ~s.fields();
  return "the row has no " + FieldSetNames(missing);
}
}  // namespace

Result<Verdicts> RowScorer::Ask(const Sample& sample) {
  judges::RowPlan plan = judges::PlanRow(sample, metrics_);
  if (plan.tasks == 0) return Verdicts{};
  return judge_->Answer({sample, plan.tasks, std::move(plan.questions)});
}

io::RowResult RowScorer::Score(const Sample& sample) {
  Result<Verdicts> verdicts = Ask(sample);
  io::RowResult row = ScoreWith(sample, verdicts);
  row.verdicts = nullptr;  // they go with this frame
  return row;
}

io::RowResult RowScorer::ScoreWith(const Sample& sample, const Result<Verdicts>& verdicts) {
  io::RowResult row{sample, {}, OkStatus()};
  if (!verdicts) row.status = verdicts.error();
  // Only runs with judged metrics carry verdicts worth drilling into.
  if (verdicts && judged_) row.verdicts = &*verdicts;
  for (const auto& metric : metrics_) {
    io::RowScore score{metric->key(), {}};
    std::string unscorable;
    if (!judges::HasRequiredFields(sample, *metric)) {
      score.value = MetricValue::Undefined(MissingFields(sample, *metric));
    } else if (!(unscorable = judges::NotThisTurn(sample, *metric)).empty()) {
      score.value = MetricValue::Undefined(std::move(unscorable));
    } else if (!(unscorable = metric->Unscorable(sample)).empty()) {
      score.value = MetricValue::Undefined(std::move(unscorable));
    } else if (!verdicts) {
      score.value = MetricValue::Undefined("judge failed: " + verdicts.error().ToString());
      score.failed = true;
    } else {
      std::string missing;
      for (JudgeTask task : AllJudgeTasks()) {
        if (!Contains(metric->tasks(), task) || HasAnswer(*verdicts, task)) continue;
        score.failed = verdicts->failed.count(JudgeTaskVerdictName(task)) > 0;
        auto it = verdicts->missing_reasons.find(JudgeTaskVerdictName(task));
        missing = it != verdicts->missing_reasons.end()
                      ? it->second
                      : judge_name_ + ": no " + JudgeTaskVerdictName(task);
        break;
      }
      // Each question must be answered, and every judge's answer is held to its question's scale
      // here, once: an answer off it fails the metric with what was off, never a number.
      const size_t contexts = sample.retrieved_contexts ? sample.retrieved_contexts->size() : 0;
      for (const JudgeQuestion& q :
           missing.empty() ? metric->questions(sample) : std::vector<JudgeQuestion>{}) {
        if (!HasAnswer(*verdicts, q)) {
          std::string name = QuestionVerdictName(q);
          score.failed = verdicts->failed.count(name) > 0;
          auto it = verdicts->missing_reasons.find(name);
          missing =
              it != verdicts->missing_reasons.end() ? it->second : judge_name_ + ": no " + name;
          break;
        }
        std::string problem = AnswerScaleProblem(q, verdicts->answers.at(q.key), contexts);
        if (problem.empty()) continue;
        missing = judge_name_ + " answered " + q.key + " off its scale: " + problem;
        score.failed = true;
        break;
      }
      score.value =
          missing.empty() ? metric->Score(sample, *verdicts) : MetricValue::Undefined(missing);
    }
    row.scores.push_back(std::move(score));
  }
  return row;
}

}  // namespace tala
