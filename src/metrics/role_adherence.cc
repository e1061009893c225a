#include "metrics/role_adherence.h"

#include "metrics/turn_metrics.h"

namespace tala::metrics {

const char* const kRoleAdherenceDefinition =
    "Read the assistant's role, then the conversation. In its final message, does the assistant "
    "keep to that role: what it says it is, what it may and may not talk about, the tone and "
    "the rules the role sets? Answer 1 if that message keeps to the role, 0 if it steps out of "
    "it (talks about what the role excludes, breaks one of its rules, or speaks as something "
    "else).";

bool GivesAssistantRole(const Sample& sample) {
  for (const char* field : kRoleFields) {
    for (const auto& [name, raw] : sample.metadata) {
      // The raw JSON of a text: its quotes around something other than blanks.
      if (name == field && raw.size() > 2 && raw.front() == '"' &&
          raw.find_first_not_of(" \t", 1) < raw.size() - 1) {
        return true;
      }
    }
  }
  return false;
}

namespace {

class RoleAdherence : public TurnVerdictMetric {
 public:
  using TurnVerdictMetric::TurnVerdictMetric;
  std::string Unscorable(const Sample& s) const override {
    if (std::string not_a_turn = NotATurn(s); !not_a_turn.empty()) return not_a_turn;
    if (!GivesAssistantRole(s)) {
      return "the row gives the assistant no role (a chatbot_role or system_prompt text)";
    }
    return "";
  }
};

}  // namespace

const MetricInfo& RoleAdherenceInfo() {
  static const MetricInfo kInfo{
      .name = "role_adherence",
      .required_fields = static_cast<FieldSet>(Field::kUserInput),
      .tasks = static_cast<TaskSet>(JudgeTask::kAnswerQuestions),
      .needs_llm = true,
      .summary =
          "share of a conversation's turns that keep to the role the assistant was given "
          "(chatbot_role or system_prompt)",
      .offline_note = "offline: not scored (a role is read by a model: use an LLM judge)",
      .offline_measured = "not scored offline, so no held-out figure",
      .offline_misses = "every row: the offline judge does not read roles",
      .by_default = false,
      .conversation_scope = ConversationScope::kEachTurn,
  };
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeRoleAdherence(const MetricOptions& options) {
  const MetricInfo& info = RoleAdherenceInfo();
  TALA_RETURN_IF_ERROR(CheckOptionNames(info.name, options, {}));
  JudgeQuestion q;
  q.kind = JudgeQuestion::Kind::kVerdict;
  q.key = info.name;
  q.definition = kRoleAdherenceDefinition;
  return std::unique_ptr<Metric>(std::make_unique<RoleAdherence>(
      info, options, q, "keeps to its role", "steps out of its role"));
}

}  // namespace tala::metrics
