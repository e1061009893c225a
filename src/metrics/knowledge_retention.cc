#include "metrics/knowledge_retention.h"

#include "metrics/turn_metrics.h"

namespace tala::metrics {

const char* const kKnowledgeRetentionDefinition =
    "Read the conversation. In its final message, does the assistant keep to everything the user "
    "has told it so far? Answer 0 if that message states something that contradicts a fact the "
    "user gave earlier, or asks the user for information the user already gave; answer 1 "
    "otherwise (also when the user gave no facts).";

const MetricInfo& KnowledgeRetentionInfo() {
  static const MetricInfo kInfo{
      .name = "knowledge_retention",
      .required_fields = static_cast<FieldSet>(Field::kUserInput),
      .tasks = static_cast<TaskSet>(JudgeTask::kAnswerQuestions),
      .needs_llm = true,
      .summary =
          "share of a conversation's turns that neither contradict nor ask again what "
          "the user said earlier",
      .offline_note =
          "offline: the user's first-person statements against each later answer "
          "(a different number, day or month of the same thing; a question the "
          "statement already answers)",
      .offline_measured =
          "no held-out measurement yet; on the 20 bundled chats it was written against (in-fit, "
          "bench/conversation_faults.py): 3 of 4 forgotten facts caught, no clean turn flagged",
      .offline_misses =
          "facts without a number, day or month (\"I am vegetarian\"); forgetting by omission; a "
          "question asked again in other words (\"How many people?\" after \"I go with him\")",
      .by_default = false,
      .conversation_scope = ConversationScope::kEachTurn,
  };
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeKnowledgeRetention(const MetricOptions& options) {
  const MetricInfo& info = KnowledgeRetentionInfo();
  TALA_RETURN_IF_ERROR(CheckOptionNames(info.name, options, {}));
  JudgeQuestion q;
  q.kind = JudgeQuestion::Kind::kVerdict;
  q.key = info.name;
  q.definition = kKnowledgeRetentionDefinition;
  return std::unique_ptr<Metric>(std::make_unique<TurnVerdictMetric>(
      info, options, q, "keeps what the user said", "forgets what the user said"));
}

}  // namespace tala::metrics
