#pragma once
// role_adherence: does each answer of a conversation keep to the role the assistant was given
// (the row's `chatbot_role`, or `system_prompt`: what it is, what it may talk about, its tone and
// its rules)? value per turn: 1 kept to it, 0 stepped out of it; the conversation's value is the
// share of turns that kept to it (as DeepEval's role adherence). Scored on each turn of a
// conversation that gives a role; undefined on other rows. One judge question per turn, on the
// conversation up to that turn with the role beside it ("role" in the request, as data), so a
// conversation of n turns asks n questions. Only a model reads a role: the offline judge says
// it needs one.

#include "metrics/metric_base.h"

namespace tala::metrics {

// The criterion every judge is asked, in tala's words.
extern const char* const kRoleAdherenceDefinition;

// The fields a row gives its assistant's role in, in order of preference (a text; the reader
// refuses another value).
inline constexpr const char* kRoleFields[] = {"chatbot_role", "system_prompt"};
// Whether a row gives its assistant a role: a `chatbot_role` (or `system_prompt`) text that is
// not blank. A conversation's turns carry their row's fields. (The judges read the text.)
bool GivesAssistantRole(const Sample& sample);

const MetricInfo& RoleAdherenceInfo();
Result<std::unique_ptr<Metric>> MakeRoleAdherence(const MetricOptions& options);

}  // namespace tala::metrics
