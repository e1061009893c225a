#pragma once
// Strict reading of the replies to the metrics' own questions (judges/llm/question_calls.h):
// every criterion answered once and in range, every topic flagged, one answer per summary
// question. kBadReply names the field at fault, so the runtime can ask for a repair. Pure.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "judges/http/wire.h"
#include "tala/judge.h"
#include "tala/status.h"
#include "tala/verdicts.h"

namespace tala::judges::llm {

// A reply with several choices or number tokens (ModelCall::choices, ::logprobs), packed as
// one text for the cache and RowCalls: {"tala_reply": [choice texts], "number_tokens": [...]}.
struct PackedReply {
  std::vector<std::string> choices;  // at least one
  std::vector<http::NumberToken> number_tokens;
};
std::string PackReply(const http::ChatReply& reply);
// kBadReply when `text` is not a packed reply (a cache entry from another tala).
Result<PackedReply> UnpackReply(std::string_view text);
// The probability-weighted mean of the whole numbers in [lo, hi] the model weighed for the
// number at `offset` of the reply's text (its top log-probabilities), or nullopt when the
// token there has none in range.
std::optional<double> WeightedNumber(const std::vector<http::NumberToken>& tokens, size_t offset,
                                     double lo, double hi);
// The offset in `text` of the value of its "score" field, or nullopt.
std::optional<size_t> ScoreOffset(std::string_view text);

// A kCriteria reply: one answer per question, in the order of `questions`, each with one value
// (verdict, score, or the ranking as 0-based context indices) or the label of a choice.
// `contexts` is the number of retrieved contexts a ranking must order.
Result<std::vector<JudgedAnswer>> ParseCriteria(std::string_view reply,
                                                const std::vector<const JudgeQuestion*>& questions,
                                                size_t contexts);
// {"rating": r} with r on the question's scale (0, 2 or 4 for answer_accuracy; 0-2 otherwise).
Result<double> ParseRating(std::string_view reply, const JudgeQuestion& question);
// {"user_goal", "end_state", "reason", "verdict": 0|1}: the verdict, the reason saying the goal.
Result<JudgedAnswer> ParseGoal(std::string_view reply);
// {"topics": [{"topic", "answered", "in_reference"}]}.
Result<JudgedAnswer> ParseTopics(std::string_view reply);
// {"response_explanation", "reference_explanation", "equivalent": bool}.
Result<JudgedAnswer> ParseSqlEquivalence(std::string_view reply);
// {"keyphrases": [...], "questions": [...]}: the questions (at least one).
Result<std::vector<std::string>> ParseSummaryQuestions(std::string_view reply);
// {"answers": [bool...]} with exactly `expected` answers.
Result<std::vector<bool>> ParseSummaryAnswers(std::string_view reply, size_t expected);
// {"steps": [...]} (at least one step).
Result<std::vector<std::string>> ParseGEvalSteps(std::string_view reply);
// {"reason", "score": 1..10}.
Result<JudgedAnswer> ParseGEvalScore(std::string_view reply, const JudgeQuestion& question);

}  // namespace tala::judges::llm
