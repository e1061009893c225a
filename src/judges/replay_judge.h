#pragma once
// The replay judge: answers with the verdicts written by hand in the row's "verdicts" field, so
// metric arithmetic can be checked exactly. A verdict the row lacks stays unanswered and its
// metrics are null ("replay: no response_claims"). Stateless: thread-safe.

#include "tala/judge.h"

namespace tala::judges {

class ReplayJudge : public Judge {
 public:
  std::string name() const override { return "replay"; }
  Result<Verdicts> Answer(const JudgeQuery& query) override;
};

}  // namespace tala::judges
