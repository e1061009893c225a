#include "metrics/turn_metrics.h"

#include "core/turn_question.h"
#include "metrics/context_precision.h"
#include "metrics/context_recall.h"
#include "metrics/faithfulness.h"
#include "metrics/nv_ratings.h"
#include "metrics/response_relevancy.h"

namespace tala::metrics {

namespace {

// A row metric scored on one turn. Its tasks and questions are the base metric's: the judge
// answers a turn as it answers a row.
class TurnMetric : public Metric {
 public:
  // `reads_the_question`: the base metric judges the answer or passages against the question,
  // which a turn of courtesy alone ("Thanks!") does not ask.
  TurnMetric(const MetricInfo& info, std::unique_ptr<Metric> base, bool reads_the_question)
      : info_(info),
        base_(std::move(base)),
        key_(std::string(kTurnPrefix) + base_->key()),
        reads_the_question_(reads_the_question) {}
  const MetricInfo& info() const override { return info_; }
  const std::string& key() const override { return key_; }
  TaskSet tasks() const override { return base_->tasks(); }
  std::vector<JudgeQuestion> questions(const Sample& s) const override {
    return base_->questions(s);
  }
  std::string question_key() const override { return base_->question_key(); }
  std::string Unscorable(const Sample& s) const override {
    if (std::string why = NotATurn(s); !why.empty()) return why;
    if (reads_the_question_ && IsCourtesyOnly(s.user_input.value_or(""))) {
      return "turn " + std::to_string(s.turn) + " asks nothing (courtesy only)";
    }
    FieldSet need = base_->info().required_fields;
    FieldSet missing = need & ~s.fields();
    if (missing != 0) return "turn " + std::to_string(s.turn) + " has no " + FieldSetNames(missing);
    return base_->Unscorable(s);
  }
  MetricValue Score(const Sample& s, const Verdicts& v) const override {
    return base_->Score(s, v);
  }

 private:
  const MetricInfo& info_;
  std::unique_ptr<Metric> base_;
  std::string key_;
  bool reads_the_question_;
};

MetricInfo TurnInfo(const MetricInfo& base, const char* summary) {
  MetricInfo info;
  info.name = std::string(kTurnPrefix) + base.name;
  // The conversation row gives the messages; what each turn needs is checked on the turn.
  info.required_fields = static_cast<FieldSet>(Field::kUserInput);
  info.tasks = base.tasks;
  info.needs_llm = base.needs_llm;
  info.needs_embeddings = base.needs_embeddings;
  info.direction = base.direction;
  info.summary = summary;
  info.offline_note = base.offline_note;
  info.offline_measured = base.offline_measured;
  info.offline_misses = base.offline_misses;
  info.by_default = false;  // chosen by default only for conversations (DefaultSpecs)
  info.conversation_scope = ConversationScope::kEachTurn;
  info.version = base.version;  // the base's arithmetic, turn by turn
  return info;
}

Result<std::unique_ptr<Metric>> Wrap(const MetricInfo& info, MetricFactory base,
                                     const MetricOptions& options, bool reads_the_question) {
  TALA_ASSIGN_OR_RETURN(std::unique_ptr<Metric> inner, base(options));
  return std::unique_ptr<Metric>(
      std::make_unique<TurnMetric>(info, std::move(inner), reads_the_question));
}

}  // namespace

const MetricInfo& TurnFaithfulnessInfo() {
  static const MetricInfo kInfo = TurnInfo(
      FaithfulnessInfo(), "each turn's answer supported by that turn's own passages (mean)");
  return kInfo;
}
const MetricInfo& TurnResponseRelevancyInfo() {
  static const MetricInfo kInfo =
      TurnInfo(ResponseRelevancyInfo(),
               "each turn's answer addresses its question, read with the turns before it (mean)");
  return kInfo;
}
const MetricInfo& TurnContextPrecisionInfo() {
  static const MetricInfo kInfo = TurnInfo(
      ContextPrecisionInfo(), "each turn's useful passages ranked first, by its reference (mean)");
  return kInfo;
}
const MetricInfo& TurnContextRecallInfo() {
  static const MetricInfo kInfo =
      TurnInfo(ContextRecallInfo(), "each turn's reference found in that turn's passages (mean)");
  return kInfo;
}
const MetricInfo& TurnContextRelevanceInfo() {
  static const MetricInfo kInfo = TurnInfo(
      ContextRelevanceInfo(), "each turn's passages bear on its question, no reference (mean)");
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeTurnFaithfulness(const MetricOptions& o) {
  return Wrap(TurnFaithfulnessInfo(), MakeFaithfulness, o, false);
}
Result<std::unique_ptr<Metric>> MakeTurnResponseRelevancy(const MetricOptions& o) {
  return Wrap(TurnResponseRelevancyInfo(), MakeResponseRelevancy, o, true);
}
Result<std::unique_ptr<Metric>> MakeTurnContextPrecision(const MetricOptions& o) {
  return Wrap(TurnContextPrecisionInfo(), MakeContextPrecision, o, false);
}
Result<std::unique_ptr<Metric>> MakeTurnContextRecall(const MetricOptions& o) {
  return Wrap(TurnContextRecallInfo(), MakeContextRecall, o, false);
}
Result<std::unique_ptr<Metric>> MakeTurnContextRelevance(const MetricOptions& o) {
  return Wrap(TurnContextRelevanceInfo(), MakeContextRelevance, o, true);
}

MetricValue TurnVerdictMetric::Score(const Sample&, const Verdicts& v) const {
  const JudgedAnswer& a = AnswerIn(v);
  const double value = a.values[0] == 1 ? 1.0 : 0.0;
  std::string why = value == 1 ? kept_ : broke_;
  if (!a.reason.empty()) why += ": " + a.reason;
  return MetricValue::Number(value, why);
}

std::string NotATurn(const Sample& s) {
  if (s.turn > 0) return {};
  if (s.is_multi_turn()) return "the conversation has no answer to score (no ai message with text)";
  return "not a turn of a conversation: give user_input as a list of messages whose ai messages "
         "carry their retrieved_contexts (docs/datasets.md, Conversations)";
}

std::string_view TurnMetricBase(std::string_view key) {
  if (key.substr(0, kTurnPrefix.size()) != kTurnPrefix) return {};
  for (const MetricInfo* info :
       {&TurnFaithfulnessInfo(), &TurnResponseRelevancyInfo(), &TurnContextPrecisionInfo(),
        &TurnContextRecallInfo(), &TurnContextRelevanceInfo()}) {
    const std::string& name = info->name;
    if (key.substr(0, name.size()) == name &&
        (key.size() == name.size() || key[name.size()] == '(' || key[name.size()] == '@')) {
      return key.substr(kTurnPrefix.size());
    }
  }
  return {};
}

}  // namespace tala::metrics
