#pragma once
// The request sent to a target, from a JSON template and a golden row. Placeholders live only
// inside the template's strings, and a row's text is inserted as a JSON value, never spliced into
// JSON text: whatever a question holds, it cannot change the request's structure. Pure.

#include <nlohmann/json.hpp>
#include <string>

#include "tala/status.h"

namespace tala::targets {

// {{user_input}}, {{id}}, {{reference}}, {{metadata.NAME}} (any golden field: {{NAME}} also
// works). A string that is exactly one placeholder becomes the value itself (a list stays a list);
// inside longer text the value is inserted as text. kInvalidArgument names an unknown
// placeholder and the golden row's id.
// {{contexts}} and {{contexts_json}} are the passages the target is to answer from: the golden
// row's `given_contexts` (tala diagnose's experiments) as a list and as the list's JSON text;
// null and "" when the row gives none (the target retrieves them itself).
Result<std::string> RenderRequest(const nlohmann::json& request_template,
                                  const nlohmann::ordered_json& golden_row);

// The golden field that carries the passages a target is to answer from.
inline constexpr const char* kGivenContexts = "given_contexts";

// Whether the template passes contexts ({{contexts}} or {{contexts_json}} somewhere in it).
bool TemplateTakesContexts(const nlohmann::json& request_template);

// "${NAME}" replaced by the environment variable NAME (empty when unset; `missing` gets its name).
std::string ExpandEnvironment(const std::string& text, std::string* missing = nullptr);

}  // namespace tala::targets
