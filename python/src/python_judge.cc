#include "python_judge.h"

#include <pybind11/stl.h>

#include "convert.h"
#include "tala/verdicts_json.h"

namespace py = pybind11;

namespace tala::python {

PythonJudge::PythonJudge(std::string name, py::object answer,
                         std::optional<py::error_already_set>* raised, std::atomic<bool>* stop)
    : name_(std::move(name)), answer_(std::move(answer)), raised_(raised), stop_(stop) {}

PythonJudge::~PythonJudge() {
  // The engine may drop its last reference without the GIL.
  py::gil_scoped_acquire acquire;
  answer_ = py::object();
}

Result<Verdicts> PythonJudge::Answer(const JudgeQuery& query) {
  std::string json;
  {
    py::gil_scoped_acquire acquire;
    if (*raised_) return Status(ErrorCode::kCancelled, "stopped by an exception in the judge");
    py::list tasks;
    for (JudgeTask task : AllJudgeTasks()) {
      if (Contains(query.tasks, task)) tasks.append(JudgeTaskVerdictName(task));
    }
    // The metrics' own questions, by the key their answer goes under ("answers.KEY").
    for (const JudgeQuestion& q : query.questions) tasks.append(QuestionVerdictName(q));
    try {
      py::dict sample = SampleDict(query.sample);
      // What each of the metrics' own questions asks, by the key its answer goes under.
      py::dict questions;
      for (const JudgeQuestion& q : query.questions) {
        py::dict d;
        d["kind"] = JudgeQuestionKindName(q.kind);
        d["definition"] = q.definition;
        if (q.kind == JudgeQuestion::Kind::kScore || q.kind == JudgeQuestion::Kind::kGEval) {
          d["min"] = q.lo;
          d["max"] = q.hi;
        }
        if (!q.levels.empty()) {
          py::dict levels;
          for (const auto& [level, text] : q.levels) levels[py::str(level)] = text;
          d["levels"] = levels;
        }
        if (!q.choices.empty()) d["choices"] = q.choices;
        d["votes"] = q.votes;
        questions[py::str(q.key)] = d;
      }
      if (!query.questions.empty()) sample["questions"] = questions;
      json = answer_(sample, tasks).cast<std::string>();
    } catch (py::error_already_set& e) {
      raised_->emplace(std::move(e));
      stop_->store(true);
      return Status(ErrorCode::kCancelled, "stopped by an exception in the judge");
    }
  }
  auto verdicts = VerdictsFromJson(json, query.sample, "judge " + name_);
  // A malformed answer fails this row, with the reason in the summary, as an LLM's would.
  if (!verdicts) return Status(ErrorCode::kBadReply, verdicts.error().ToString());
  for (JudgeTask task : AllJudgeTasks()) {
    if (Contains(query.tasks, task) && !HasAnswer(*verdicts, task) &&
        !verdicts->missing_reasons.count(JudgeTaskVerdictName(task))) {
      verdicts->missing_reasons[JudgeTaskVerdictName(task)] =
          "judge " + name_ + " gave no " + JudgeTaskVerdictName(task);
    }
  }
  for (const JudgeQuestion& q : query.questions) {
    if (!HasAnswer(*verdicts, q) && !verdicts->missing_reasons.count(QuestionVerdictName(q))) {
      verdicts->missing_reasons[QuestionVerdictName(q)] =
          "judge " + name_ + " gave no complete " + QuestionVerdictName(q);
    }
  }
  return verdicts;
}

}  // namespace tala::python
