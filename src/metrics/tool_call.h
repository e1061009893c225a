#pragma once
// tool_call_accuracy and tool_call_f1: an agent's tool calls (every `tool_calls` of the
// conversation's ai messages, in order) against `reference_tool_calls`. No judge.
//
// tool_call_accuracy (option strict_order=true|false, default true):
//   both lists empty → 1; one empty → 0. The calls must line up by name: with strict_order the
//   predicted names in order must equal the reference names in order, without it the two lists
//   are first sorted by (name, then the arguments by name and value) — else 0. Each aligned
//   pair scores the share of the reference call's arguments the prediction gives with the same
//   value (exact string match of the values as Python's str() writes them; extra predicted
//   arguments are ignored; a call with no reference arguments scores 1 when the prediction has
//   none, else 0); the row is the mean over reference calls.
//   [search(q=paris), book(hotel=Ritz)] vs the same: 1; with hotel=Hilton: (1 + 0) / 2 = 0.5;
//   the same two calls in swapped order under strict order: 0.
// tool_call_f1: sets of (name, arguments) for predicted and reference calls (duplicates count
//   once); P = |A∩E|/|A|, R = |A∩E|/|E| (0 when a set is empty), F1 = 2PR/(P+R) or 0.
//   Both empty → 0 (as in Ragas; tool_call_accuracy gives 1 there). Argument values compare as
//   their str() text, as in tool_call_accuracy (Ragas compares the raw values here, so 75 and
//   "75" differ for its F1 but not for its accuracy; tala treats them alike in both).
// Both in [0, 1]; higher is better. Source: the Ragas ToolCallAccuracy and ToolCallF1 metrics.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& ToolCallAccuracyInfo();
const MetricInfo& ToolCallF1Info();
Result<std::unique_ptr<Metric>> MakeToolCallAccuracy(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeToolCallF1(const MetricOptions& options);
}  // namespace tala::metrics
