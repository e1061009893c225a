#pragma once
// conversation_completeness: the share of the user's asks in a conversation that the assistant
// met by its end. Scored once per conversation, on the whole of it (on its last turn); the
// judge lists what it read as asks and which were met (the offline judge names the ones left
// unmet and their turns). Undefined on rows that are not conversations.

#include "metrics/metric_base.h"

namespace tala::metrics {

// The criterion every judge is asked, in tala's words; the offline judge recognises it.
extern const char* const kConversationCompletenessDefinition;

const MetricInfo& ConversationCompletenessInfo();
Result<std::unique_ptr<Metric>> MakeConversationCompleteness(const MetricOptions& options);

}  // namespace tala::metrics
