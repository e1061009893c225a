#pragma once
// knowledge_retention: does each answer of a conversation keep what the user said earlier? A
// turn fails when its ai message contradicts a fact the user stated before it ("I travel on
// Saturday" ... "since you travel on a weekday") or asks for it again ("How many are you?"
// after "We are three"). value per turn: 1 kept, 0 forgot; the conversation's value is the
// share of turns that kept it (as DeepEval's knowledge retention). Scored on each turn of a
// conversation; undefined on other rows. One judge question per turn, on the conversation up
// to that turn, so a conversation of n turns asks n questions.

#include "metrics/metric_base.h"

namespace tala::metrics {

// The criterion every judge is asked, in tala's words; the offline judge recognises it.
extern const char* const kKnowledgeRetentionDefinition;

const MetricInfo& KnowledgeRetentionInfo();
Result<std::unique_ptr<Metric>> MakeKnowledgeRetention(const MetricOptions& options);

}  // namespace tala::metrics
