#pragma once
// Finds a value in a reply by a JSON pointer ("/data/answer", RFC 6901) or a dotted path
// ("data.answer", "choices.0.text": numbers index arrays). Pure; thread-safe.

#include <nlohmann/json.hpp>
#include <string_view>

namespace tala::targets {

// nullptr when any step is missing.
const nlohmann::json* FindPath(const nlohmann::json& root, std::string_view path);

}  // namespace tala::targets
