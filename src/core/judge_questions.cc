#include "core/judge_questions.h"

#include <cmath>
#include <cstdio>
#include <set>
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

namespace {
// A number as a person writes it: "3", "1.5", "-0.25".
std::string Plain(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
bool Whole(double v) { return std::isfinite(v) && std::floor(v) == v; }
}  // namespace

std::string ScoreScaleProblem(const JudgeQuestion& q, double score) {
  if (!std::isfinite(score) || score < q.lo || score > q.hi) {
    return "score " + Plain(score) + " is outside the scale " + Plain(q.lo) + ".." + Plain(q.hi);
  }
  if (q.kind == JudgeQuestion::Kind::kScore && q.integer && !Whole(score)) {
    return "score " + Plain(score) + " is not a whole number on the scale " + Plain(q.lo) + ".." +
           Plain(q.hi);
  }
  return {};
}

std::string RatingScaleProblem(const JudgeQuestion& q, double rating) {
  const bool accuracy = q.definition == "answer_accuracy";
  const bool ok = accuracy ? (rating == 0 || rating == 2 || rating == 4)
                           : (rating == 0 || rating == 1 || rating == 2);
  if (ok) return {};
  return "rating " + Plain(rating) + " is not one of " + (accuracy ? "0, 2, 4" : "0, 1, 2");
}

std::string AnswerScaleProblem(const JudgeQuestion& q, const JudgedAnswer& a, size_t contexts) {
  using K = JudgeQuestion::Kind;
  auto zero_or_one = [&](const char* what) -> std::string {
    for (double v : a.values) {
      if (v != 0 && v != 1) return std::string(what) + " " + Plain(v) + " is not 0 or 1";
    }
    return {};
  };
  switch (q.kind) {
    case K::kVerdict:
      return zero_or_one("verdict");
    case K::kGoal:
      return zero_or_one("goal verdict");
    case K::kSqlEquivalence:
      return zero_or_one("equivalence verdict");
    case K::kScore:
    case K::kGEval: {
      for (double v : a.values) {
        if (std::string problem = ScoreScaleProblem(q, v); !problem.empty()) return problem;
      }
      if (a.weighted && (!std::isfinite(*a.weighted) || *a.weighted < q.lo || *a.weighted > q.hi)) {
        return "weighted score " + Plain(*a.weighted) + " is outside the scale " + Plain(q.lo) +
               ".." + Plain(q.hi);
      }
      return {};
    }
    case K::kChoice: {
      if (q.choices.empty()) return {};
      for (const std::string& c : q.choices) {
        if (c == a.label) return {};
      }
      std::string list;
      for (const std::string& c : q.choices) list += (list.empty() ? "" : ", ") + c;
      return "\"" + a.label + "\" is not one of the choices (" + list + ")";
    }
    case K::kRating:
      for (double v : a.values) {
        if (std::string problem = RatingScaleProblem(q, v); !problem.empty()) return problem;
      }
      if (a.weighted &&
          (!std::isfinite(*a.weighted) || *a.weighted < 0 || *a.weighted > RatingScaleTop(q))) {
        return "expected rating " + Plain(*a.weighted) + " is outside the scale 0.." +
               Plain(RatingScaleTop(q));
      }
      return {};
    case K::kRanking: {
      if (a.values.size() != contexts) {
        return "the ranking orders " + std::to_string(a.values.size()) + " contexts; the row has " +
               std::to_string(contexts);
      }
      std::set<double> seen;
      for (double v : a.values) {
        if (!Whole(v) || v < 0 || v >= static_cast<double>(contexts) || !seen.insert(v).second) {
          return "the ranking's " + Plain(v) + " is not a context index (0.." +
                 std::to_string(contexts - 1) + ") given once";
        }
      }
      return {};
    }
    case K::kTopics:
    case K::kSummary:
      return {};  // yes/no flags: nothing off a scale
  }
  return {};
}

}  // namespace tala
