#include "metrics/conversation_completeness.h"

#include "metrics/turn_metrics.h"

namespace tala::metrics {

const char* const kConversationCompletenessDefinition =
    "Read the whole conversation. List to yourself each thing the user asked for or asked "
    "about. Score the share of those asks that the assistant's messages met by the end of the "
    "conversation: 1 when every ask was met, 0 when none was. An ask the assistant declined, "
    "deferred or answered about something else is not met.";

namespace {

class ConversationCompleteness : public QuestionMetric {
 public:
  using QuestionMetric::QuestionMetric;
  std::string Unscorable(const Sample& s) const override { return NotATurn(s); }
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    const JudgedAnswer& a = AnswerIn(v);
    std::string why = "share of the user's asks met";
    if (!a.reason.empty()) why = a.reason;
    return MetricValue::Number(a.values[0], why);
  }
};

}  // namespace

const MetricInfo& ConversationCompletenessInfo() {
  static const MetricInfo kInfo{
      .name = "conversation_completeness",
      .required_fields = static_cast<FieldSet>(Field::kUserInput),
      .tasks = static_cast<TaskSet>(JudgeTask::kAnswerQuestions),
      .needs_llm = true,
      .summary = "share of the user's asks in a conversation met by its end",
      .offline_note =
          "offline: each question or request of the user read against the answers "
          "after it (the relevance reading); declining is not meeting",
      .offline_measured =
          "no held-out measurement yet; on the 20 bundled chats it was written against (in-fit): 2 "
          "of 2 unmet asks named at their turn; 2 of 28 clean turns named unmet",
      .offline_misses =
          "asks the relevance reading cannot link to their answer (\"I lost my umbrella\" answered "
          "by \"lost property is kept...\"); requests without a question mark or a request phrase",
      .by_default = false,
      .conversation_scope = ConversationScope::kWhole,
  };
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeConversationCompleteness(const MetricOptions& options) {
  const MetricInfo& info = ConversationCompletenessInfo();
  TALA_RETURN_IF_ERROR(CheckOptionNames(info.name, options, {}));
  JudgeQuestion q;
  q.kind = JudgeQuestion::Kind::kScore;
  q.key = info.name;
  q.definition = kConversationCompletenessDefinition;
  q.lo = 0;
  q.hi = 1;
  q.integer = false;
  return std::unique_ptr<Metric>(std::make_unique<ConversationCompleteness>(info, options, q));
}

}  // namespace tala::metrics
