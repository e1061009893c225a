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
Result<std::string> RenderRequest(const nlohmann::json& request_template,
                                  const nlohmann::ordered_json& golden_row);

// "${NAME}" replaced by the environment variable NAME (empty when unset; `missing` gets its name).
std::string ExpandEnvironment(const std::string& text, std::string* missing = nullptr);

}  // namespace tala::targets
