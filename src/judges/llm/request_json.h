#pragma once
// Building blocks of a chat call shared by the task calls (row_calls.cc) and the metrics' own
// questions (question_calls.cc): the user message is one JSON object of the row's texts, and the
// reply's JSON schema is strict (every property required, nothing else allowed).

#include <nlohmann/json.hpp>
#include <string>

#include "judges/llm/model_call.h"
#include "judges/llm/prompts.h"

namespace tala::judges::llm {

// Keys keep their insertion order, so a request reads in the order the prompt describes.
using Request = nlohmann::ordered_json;

inline std::string Encode(const Request& request) {
  // Invalid UTF-8 would make the encoder throw; the readers reject it, but a replacement
  // character is the safe answer if one ever gets this far.
  return request.dump(-1, ' ', false, Request::error_handler_t::replace);
}

// Strict-mode JSON schema (every property required, nothing else allowed), as OpenAI asks.
inline nlohmann::json ObjectSchema(nlohmann::json properties) {
  nlohmann::json required = nlohmann::json::array();
  for (auto& [name, _] : properties.items()) required.push_back(name);
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", std::move(required)},
          {"additionalProperties", false}};
}
inline nlohmann::json ArrayOf(nlohmann::json items) {
  return {{"type", "array"}, {"items", std::move(items)}};
}
inline nlohmann::json JsonType(const char* type) { return {{"type", type}}; }
inline nlohmann::json Nullable(const char* type) {
  return {{"type", nlohmann::json::array({type, "null"})}};
}

// A chat call of `kind` with the prompt file `prompt_name`.
inline ModelCall ChatCall(CallKind kind, const std::string& prompt_name, TaskSet tasks,
                          std::string user, const nlohmann::json& schema) {
  const Prompt& prompt = GetPrompt(prompt_name);
  ModelCall call;
  call.kind = kind;
  call.tasks = tasks;
  call.prompt_id = prompt.id();
  call.messages = {{"system", prompt.system}, {"user", std::move(user)}};
  call.schema = schema.dump();
  return call;
}

}  // namespace tala::judges::llm
