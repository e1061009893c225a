#pragma once
// TargetSpec: how `tala run` calls the system under test and reads its replies. Shared by the
// run engine (tala/run.h) and the targets that make the calls (src/targets/).

#include <cstddef>
#include <string>
#include <vector>

namespace tala {

// How to call the target and read its replies. Paths are JSON pointers ("/data/answer") or
// dotted paths ("data.answer", "choices.0.text"); empty: the defaults below.
struct TargetSpec {
  // "http://HOST:PORT/PATH" or "https://...", "exec:COMMAND ARGS" (a long-lived process speaking
  // JSON Lines, several requests in flight, replies matched by "id") or "exec-once:COMMAND" (one
  // process per row: the request on stdin, the reply on stdout).
  std::string target;
  std::string method = "POST";       // HTTP: POST or PUT
  std::vector<std::string> headers;  // "Name: value", ${ENV} expanded
  // The request: a JSON template whose strings may hold {{user_input}}, {{id}}, {{reference}}
  // or {{metadata.NAME}}; a string that is just one placeholder takes the value's JSON type.
  // Empty: HTTP {"question": "{{user_input}}"}; exec: the golden row with its id.
  std::string body;
  std::string response;     // default: answer, else response
  std::string contexts;     // default: contexts, else retrieved_contexts (strings or objects)
  std::string context_ids;  // default: the contexts' id field, else context_ids
  std::string context_text = "text";  // the text field of object contexts ("content" also read)
  std::string context_id = "id";      // the id field of object contexts
  // Optional figures the target reports (default: usage.prompt_tokens, usage.completion_tokens,
  // cost_usd when present).
  std::string prompt_tokens, completion_tokens, cost;
  // A reply (an HTTP body, an exec line or an exec-once output) over this fails its row with a
  // reason, never the process (a target that floods its output cannot exhaust memory).
  size_t max_reply_bytes = size_t{64} << 20;
};

}  // namespace tala
