#pragma once
// One request to a model, as plain data: which prompt, which messages, which reply shape, and
// which judge tasks its answer fills. Built by RowCalls, sent by the runtime, keyed in the cache.

#include <string>
#include <vector>

#include "tala/judge.h"

namespace tala::judges::llm {

enum class CallKind {
  kResponseClaims,     // split the response into claims; support by chunk, correctness
  kReferenceClaims,    // split the reference into claims; attribution, presence in the response
  kRateChunks,         // usefulness of each chunk for the reference and/or the response
  kGenerateQuestions,  // questions the response answers, and a noncommittal flag
  kExtractEntities,    // named entities of the reference and of the context
  kEmbed,              // embeddings of a list of texts (one request)
};
// The prompt name ("rate_chunks") or "embeddings".
const char* CallKindName(CallKind kind);

struct ChatMessage {
  std::string role;  // "system" | "user"
  std::string content;
};

struct ModelCall {
  CallKind kind = CallKind::kResponseClaims;
  TaskSet tasks = 0;    // the judge tasks this call's answer fills
  int chunk_begin = 0;  // kRateChunks: the chunks rated, [chunk_begin, chunk_end)
  int chunk_end = 0;
  int questions = 0;      // kGenerateQuestions: how many were asked for
  std::string prompt_id;  // "rate_chunks@2"; empty for kEmbed
  std::vector<ChatMessage> messages;
  std::string schema;               // JSON schema of the reply, for structured output
  std::vector<std::string> inputs;  // kEmbed: the texts
};

}  // namespace tala::judges::llm
