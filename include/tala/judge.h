#pragma once
// Judge: where verdicts come from (hand-written replay, the offline judge, an LLM over HTTP).
// A judge answers typed tasks for one sample; the task plan asks each task once per sample, and
// every metric that needs it shares the answer. Implementations say their own thread-safety.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tala/sample.h"
#include "tala/status.h"
#include "tala/verdicts.h"

namespace tala {

// Each task fills one part of Verdicts.
enum class JudgeTask : uint32_t {
  kRateChunksForReference = 1u << 0,         // chunk_relevant
  kRateChunksForResponse = 1u << 1,          // chunk_relevant_to_response
  kVerifyResponseClaims = 1u << 2,           // response_claims: text, supported, supported_by
  kCheckClaimsAgainstReference = 1u << 3,    // response_claims[].correct
  kAttributeReferenceClaims = 1u << 4,       // reference_claims: text, attributed
  kFindReferenceClaimsInResponse = 1u << 5,  // reference_claims[].in_response
  kGenerateQuestions = 1u << 6,              // generated_questions with cosines
  kExtractEntities = 1u << 7,                // reference_entities, context_entities
  kEmbedResponseAndReference = 1u << 8,      // response_reference_similarity
  kAnswerQuestions = 1u << 9,                // answers: the metrics' own questions
};
using TaskSet = uint32_t;
constexpr TaskSet operator|(JudgeTask a, JudgeTask b) {
  return static_cast<TaskSet>(a) | static_cast<TaskSet>(b);
}
constexpr TaskSet operator|(TaskSet a, JudgeTask b) { return a | static_cast<TaskSet>(b); }
constexpr bool Contains(TaskSet set, JudgeTask t) { return (set & static_cast<TaskSet>(t)) != 0; }

const std::vector<JudgeTask>& AllJudgeTasks();
// The verdict a task fills, as named in the replay format ("response_claims").
const char* JudgeTaskVerdictName(JudgeTask task);
// True when `verdicts` holds the answer to `task` for `sample`.
bool HasAnswer(const Verdicts& verdicts, JudgeTask task);

// A question a metric asks about a row in its own terms (an aspect, a criterion, a rubric, the
// agent's goal...), beyond the fixed tasks. Its answer goes in Verdicts::answers[key]; metrics
// asking the same key share one answer (the three modes of topic_adherence).
struct JudgeQuestion {
  enum class Kind {
    kVerdict,         // 0/1 on `definition`; `votes` verdicts, the majority wins (aspect_critic)
    kScore,           // a number in [lo, hi] on `definition`, or by the rubric `levels`
    kChoice,          // one of `choices` on `definition` (label); a discrete user metric
    kRanking,         // the retrieved contexts ranked best first on `definition` (values: indices)
    kRating,          // two ratings (two templates) on a fixed NVIDIA scale named by `definition`
    kGoal,            // did the conversation reach the user's goal (the reference, else inferred)
    kTopics,          // topics of the conversation, each answered or refused, in reference_topics
    kSqlEquivalence,  // do response and reference SQL return the same result over the schema
    kSummary,         // questions drawn from the source text, each answered by the summary or not
    kGEval,           // evaluation steps from `definition`, then a score in [lo, hi]
  };
  Kind kind = Kind::kVerdict;
  std::string key;         // names the answer: the metric's results key, without tuning options
  std::string definition;  // the criterion, in the user's words
  std::vector<std::pair<std::string, std::string>> levels;  // rubric: "score1_description" -> text
  bool row_rubrics = false;          // the rubric is the row's own `rubrics` field
  std::vector<std::string> choices;  // kChoice: the allowed values
  double lo = 0, hi = 1;             // kScore, kGEval: the scale
  bool integer = true;               // kScore: whole numbers only
  int votes = 1;                     // kVerdict: verdicts asked for (strictness)
};

const char* JudgeQuestionKindName(JudgeQuestion::Kind kind);
// The name of a question's verdict in missing_reasons and failed: "answers.KEY".
std::string QuestionVerdictName(const JudgeQuestion& question);
// True when `verdicts` holds a complete answer to `question` (every vote, both ratings...).
bool HasAnswer(const Verdicts& verdicts, const JudgeQuestion& question);

struct JudgeQuery {
  const Sample& sample;
  TaskSet tasks = 0;
  std::vector<JudgeQuestion> questions = {};  // with JudgeTask::kAnswerQuestions in tasks
};

class Judge {
 public:
  virtual ~Judge() = default;
  // Identity of the judge in the run manifest and the summary: "replay", "offline",
  // "openai:gpt-4o".
  virtual std::string name() const = 0;
  // Answers the tasks it can. A task it cannot answer is left unset, with a reason in
  // Verdicts::missing_reasons[JudgeTaskVerdictName(task)]. A non-OK status fails the whole row.
  virtual Result<Verdicts> Answer(const JudgeQuery& query) = 0;
};

}  // namespace tala
