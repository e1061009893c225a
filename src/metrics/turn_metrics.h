#pragma once
// The per-turn metrics of a conversation: turn_faithfulness, turn_response_relevancy,
// turn_context_precision, turn_context_recall and turn_context_relevance. Each is the Ragas
// metric of the same name scored on one turn of a conversation: the turn's ai message as the
// response, the passages and reference that message carries, and the turn's question read with
// the conversation before it (engine/conversation_turns.h makes the turns). A conversation's
// value is the mean over the turns that define it; the results line keeps each turn's value.
// Undefined on a row that is not a turn of a conversation. Same arithmetic as the base metric,
// so one turn costs what one row does and a conversation of n turns n times that.

#include <string_view>

#include "metrics/metric_base.h"

namespace tala::metrics {

const MetricInfo& TurnFaithfulnessInfo();
const MetricInfo& TurnResponseRelevancyInfo();
const MetricInfo& TurnContextPrecisionInfo();
const MetricInfo& TurnContextRecallInfo();
const MetricInfo& TurnContextRelevanceInfo();
Result<std::unique_ptr<Metric>> MakeTurnFaithfulness(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeTurnResponseRelevancy(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeTurnContextPrecision(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeTurnContextRecall(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeTurnContextRelevance(const MetricOptions& options);

// Why a conversation metric does not score `sample`: it is not a turn of a conversation (a
// single row, or a conversation with no answered turn); empty for a turn.
std::string NotATurn(const Sample& sample);

// A yes/no judge question asked of each turn of a conversation (knowledge_retention,
// role_adherence): 1 when the judge's verdict is 1, else 0, the reason `kept` or `broke` and the
// judge's own; undefined on a row that is not a turn.
class TurnVerdictMetric : public QuestionMetric {
 public:
  TurnVerdictMetric(const MetricInfo& info, MetricOptions options, JudgeQuestion question,
                    std::string kept, std::string broke)
      : QuestionMetric(info, std::move(options), std::move(question)),
        kept_(std::move(kept)),
        broke_(std::move(broke)) {}
  std::string Unscorable(const Sample& s) const override { return NotATurn(s); }
  MetricValue Score(const Sample&, const Verdicts& v) const override;

 private:
  std::string kept_, broke_;
};

// The prefix of every per-turn metric's name.
inline constexpr std::string_view kTurnPrefix = "turn_";
// The row metric a per-turn results key scores on each turn ("faithfulness" for
// "turn_faithfulness"), or "" when the key is not a per-turn metric's.
std::string_view TurnMetricBase(std::string_view results_key);

}  // namespace tala::metrics
