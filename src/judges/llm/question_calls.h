#pragma once
// QuestionCalls: the model calls for the metrics' own questions of one row, and the answers
// their replies make. Call economy: every aspect, criterion, rubric and user metric of the row
// shares one kCriteria call (strictness N asks it for N choices, OpenAI's `n`; a server that
// gives fewer is asked each missing round in a call of its own);
// an NVIDIA rating is two short calls (two templates); the agent's goal, the topics and SQL
// equivalence are one call each; a summary is two calls (questions from the source, then
// answers from the summary) and G-Eval two (steps, the same request for every row and so
// cached once per criterion, then the score). Pure; not thread-safe.

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "judges/llm/model_call.h"
#include "tala/judge.h"
#include "tala/sample.h"
#include "tala/status.h"

namespace tala::judges::llm {

class QuestionCalls {
 public:
  QuestionCalls(const Sample& sample, std::vector<JudgeQuestion> questions);

  // The calls that need no other answer (a ranking of no contexts is answered in `verdicts`).
  std::vector<ModelCall> FirstCalls(Verdicts& verdicts) const;
  // The calls that need a first call's answer (summary answers, G-Eval scores): call once the
  // first calls are all answered or failed.
  std::vector<ModelCall> FollowUpCalls() const;
  // kBadReply naming what is wrong; nothing changes then, so the call may be retried.
  Status Accept(const ModelCall& call, std::string_view reply, Verdicts& verdicts);
  // The call failed for good: its questions are unanswered (and failed) with `reason`.
  void Fail(const ModelCall& call, const std::string& reason, Verdicts& verdicts);

 private:
  const JudgeQuestion* Find(const std::string& key) const;
  ModelCall CriteriaCall(int vote) const;

  const Sample& sample_;
  std::vector<JudgeQuestion> questions_;
  // Answers that arrive in parts: verdict rounds, the two rating templates, first stages.
  std::map<std::string, std::vector<std::optional<JudgedAnswer>>> votes_;
  std::map<std::string, std::array<std::optional<double>, 2>> ratings_;
  std::map<std::string, std::vector<std::string>> summary_questions_, steps_;
  std::vector<int> missing_rounds_;  // verdict rounds the server's choices did not cover
};

// The conversation as the prompts show it: one "role: text" line per message, an assistant's
// tool calls written after its text as name(arg=value, ...).
std::string Transcript(const Sample& sample);

}  // namespace tala::judges::llm
