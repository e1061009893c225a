#pragma once
// A judge written in Python (tala.Judge or a callable): the engine hands it each row and the
// verdicts it needs; it answers with verdicts in the replay format as JSON text, checked exactly
// as a replay row's are. tala still does the arithmetic and the statistics.

#include <pybind11/pybind11.h>

#include <atomic>
#include <optional>
#include <string>

#include "tala/judge.h"

namespace tala::python {

class PythonJudge : public Judge {
 public:
  // `answer(sample_dict, [verdict names]) -> str` (JSON). An exception from it stops the run:
  // it is kept in `*raised` and `*stop` is set, and the row is left unscored.
  PythonJudge(std::string name, pybind11::object answer,
              std::optional<pybind11::error_already_set>* raised, std::atomic<bool>* stop);
  ~PythonJudge() override;

  std::string name() const override { return name_; }
  Result<Verdicts> Answer(const JudgeQuery& query) override;

 private:
  std::string name_;
  pybind11::object answer_;
  std::optional<pybind11::error_already_set>* raised_;
  std::atomic<bool>* stop_;
};

}  // namespace tala::python
