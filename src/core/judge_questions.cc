#include "core/judge_questions.h"

#include <string_view>

namespace tala {

const char* JudgeQuestionKindName(JudgeQuestion::Kind kind) {
  switch (kind) {
    case JudgeQuestion::Kind::kVerdict:
      return "verdict";
    case JudgeQuestion::Kind::kScore:
      return "score";
    case JudgeQuestion::Kind::kChoice:
      return "choice";
    case JudgeQuestion::Kind::kRanking:
      return "ranking";
    case JudgeQuestion::Kind::kRating:
      return "rating";
    case JudgeQuestion::Kind::kGoal:
      return "goal";
    case JudgeQuestion::Kind::kTopics:
      return "topics";
    case JudgeQuestion::Kind::kSqlEquivalence:
      return "sql_equivalence";
    case JudgeQuestion::Kind::kSummary:
      return "summary";
    case JudgeQuestion::Kind::kGEval:
      return "g_eval";
  }
  return "?";
}

std::string QuestionVerdictName(const JudgeQuestion& question) { return "answers." + question.key; }

namespace {
bool AllFlagged(const std::vector<AnswerItem>& items, std::initializer_list<const char*> flags) {
  for (const AnswerItem& item : items) {
    for (const char* f : flags) {
      if (!item.flags.count(f)) return false;
    }
  }
  return true;
}
}  // namespace

bool HasAnswer(const Verdicts& verdicts, const JudgeQuestion& q) {
  auto it = verdicts.answers.find(q.key);
  if (it == verdicts.answers.end()) return false;
  const JudgedAnswer& a = it->second;
  using K = JudgeQuestion::Kind;
  switch (q.kind) {
    case K::kVerdict:
      return a.values.size() >= static_cast<size_t>(q.votes);
    case K::kChoice:
      return !a.label.empty();
    case K::kRanking:
      return true;  // an empty ranking of no contexts is an answer
    case K::kRating:
      return a.values.size() == 2;
    case K::kTopics:
      return AllFlagged(a.items, {"answered", "in_reference"});
    case K::kSummary:
      return AllFlagged(a.items, {"answered"});
    case K::kScore:
    case K::kGoal:
    case K::kSqlEquivalence:
    case K::kGEval:
      return !a.values.empty();
  }
  return false;
}

namespace {
std::string_view Strip(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}
}  // namespace

double RatingScaleTop(const JudgeQuestion& question) {
  return question.definition == "answer_accuracy" ? 4.0 : 2.0;
}

std::optional<double> RatingWithoutJudge(const Sample& s, const JudgeQuestion& q) {
  if (q.kind != JudgeQuestion::Kind::kRating || q.definition == "answer_accuracy") {
    return std::nullopt;
  }
  std::string joined;
  if (s.retrieved_contexts) {
    for (size_t i = 0; i < s.retrieved_contexts->size(); ++i) {
      joined += (i ? "\n" : "") + (*s.retrieved_contexts)[i];
    }
  }
  std::string_view contexts = Strip(joined);
  if (q.definition == "context_relevance") {
    const std::string question_text = s.user_input.value_or("");
    std::string_view question = Strip(question_text);
    if (question.empty() || contexts.empty() || question == contexts ||
        question.find(contexts) != std::string_view::npos) {
      return 0.0;
    }
    return std::nullopt;
  }
  const std::string response_text = s.response.value_or("");
  std::string_view response = Strip(response_text);
  if (response.empty() || contexts.empty()) return 0.0;
  if (contexts.find(response) != std::string_view::npos) return RatingScaleTop(q);
  return std::nullopt;
}

}  // namespace tala
