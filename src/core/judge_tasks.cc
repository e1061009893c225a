#include "tala/judge.h"

namespace tala {

const std::vector<JudgeTask>& AllJudgeTasks() {
  static const std::vector<JudgeTask> kAll = {
      JudgeTask::kRateChunksForReference,   JudgeTask::kRateChunksForResponse,
      JudgeTask::kVerifyResponseClaims,     JudgeTask::kCheckClaimsAgainstReference,
      JudgeTask::kAttributeReferenceClaims, JudgeTask::kFindReferenceClaimsInResponse,
      JudgeTask::kGenerateQuestions,        JudgeTask::kExtractEntities,
      JudgeTask::kEmbedResponseAndReference};
  return kAll;
}

const char* JudgeTaskVerdictName(JudgeTask task) {
  switch (task) {
    case JudgeTask::kRateChunksForReference:
      return "chunk_relevant";
    case JudgeTask::kRateChunksForResponse:
      return "chunk_relevant_to_response";
    case JudgeTask::kVerifyResponseClaims:
      return "response_claims";
    case JudgeTask::kCheckClaimsAgainstReference:
      return "response_claims.correct";
    case JudgeTask::kAttributeReferenceClaims:
      return "reference_claims";
    case JudgeTask::kFindReferenceClaimsInResponse:
      return "reference_claims.in_response";
    case JudgeTask::kGenerateQuestions:
      return "generated_questions";
    case JudgeTask::kExtractEntities:
      return "entities";
    case JudgeTask::kEmbedResponseAndReference:
      return "response_reference_similarity";
    case JudgeTask::kAnswerQuestions:
      return "answers";
  }
  return "?";
}

namespace {
template <typename T, typename Pred>
bool AllHave(const std::optional<std::vector<T>>& items, Pred pred) {
  if (!items) return false;
  for (const T& item : *items) {
    if (!pred(item)) return false;
  }
  return true;
}
}  // namespace

bool HasAnswer(const Verdicts& v, JudgeTask task) {
  switch (task) {
    case JudgeTask::kRateChunksForReference:
      return v.chunk_relevant.has_value();
    case JudgeTask::kRateChunksForResponse:
      return v.chunk_relevant_to_response.has_value();
    case JudgeTask::kVerifyResponseClaims:
      return AllHave(v.response_claims, [](const ClaimVerdict& c) { return c.supported; });
    case JudgeTask::kCheckClaimsAgainstReference:
      return AllHave(v.response_claims, [](const ClaimVerdict& c) { return c.correct; });
    case JudgeTask::kAttributeReferenceClaims:
      return AllHave(v.reference_claims, [](const ReferenceClaim& c) { return c.attributed; });
    case JudgeTask::kFindReferenceClaimsInResponse:
      return AllHave(v.reference_claims, [](const ReferenceClaim& c) { return c.in_response; });
    case JudgeTask::kGenerateQuestions:
      return AllHave(v.generated_questions,
                     [](const GeneratedQuestion& q) { return q.cosine.has_value(); });
    case JudgeTask::kExtractEntities:
      return v.reference_entities.has_value() && v.context_entities.has_value();
    case JudgeTask::kEmbedResponseAndReference:
      return v.response_reference_similarity.has_value();
    case JudgeTask::kAnswerQuestions:
      return true;  // each question is checked on its own: HasAnswer(verdicts, question)
  }
  return false;
}

}  // namespace tala
