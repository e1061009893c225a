#include "judges/replay_judge.h"

namespace tala::judges {

Result<Verdicts> ReplayJudge::Answer(const JudgeQuery& query) {
  Verdicts v = query.sample.verdicts.value_or(Verdicts{});
  for (JudgeTask task : AllJudgeTasks()) {
    if (Contains(query.tasks, task) && !HasAnswer(v, task)) {
      v.missing_reasons[JudgeTaskVerdictName(task)] =
          query.sample.verdicts
              ? std::string("replay: no ") + JudgeTaskVerdictName(task) + " in the row's verdicts"
              : "replay: the row has no verdicts field";
    }
  }
  for (const JudgeQuestion& q : query.questions) {
    if (HasAnswer(v, q)) continue;
    v.missing_reasons[QuestionVerdictName(q)] =
        query.sample.verdicts
            ? "replay: no complete " + QuestionVerdictName(q) + " in the row's verdicts"
            : "replay: the row has no verdicts field";
  }
  return v;
}

}  // namespace tala::judges
