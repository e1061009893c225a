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

struct JudgeQuery {
  const Sample& sample;
  TaskSet tasks = 0;
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
