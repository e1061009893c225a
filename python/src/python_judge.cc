#include "python_judge.h"

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
    try {
      json = answer_(SampleDict(query.sample), tasks).cast<std::string>();
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
  return verdicts;
}

}  // namespace tala::python
