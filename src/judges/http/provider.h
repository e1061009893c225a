#pragma once
// A chat model provider's wire format: builds the HTTP request for a list of messages and reads
// the reply back. OpenAI Chat Completions (also vLLM, Ollama, llama.cpp's server, LM Studio)
// and Anthropic Messages. Pure; thread-safe.

#include <memory>
#include <string>
#include <vector>

#include "judges/http/wire.h"
#include "judges/llm/model_call.h"
#include "tala/status.h"

namespace tala::judges::http {

class ChatProvider {
 public:
  virtual ~ChatProvider() = default;
  virtual const char* name() const = 0;
  // `schema` is the JSON schema the reply must follow (used when structured output is on).
  virtual HttpRequest BuildChat(const ModelSettings& settings,
                                const std::vector<llm::ChatMessage>& messages,
                                const std::string& schema, const ChatExtras& extras = {}) const = 0;
  // Non-2xx → StatusForHttpError; a 2xx body that is not the provider's reply shape →
  // kBadReply.
  virtual Result<ChatReply> ParseChat(const HttpResponse& response) const = 0;
};

// "openai" or "anthropic"; kNotFound otherwise.
Result<std::unique_ptr<ChatProvider>> MakeChatProvider(const std::string& provider);

// OpenAI-compatible /embeddings, all inputs in one request.
HttpRequest BuildEmbeddingsRequest(const ModelSettings& settings,
                                   const std::vector<std::string>& inputs);
Result<EmbeddingsReply> ParseEmbeddingsResponse(const HttpResponse& response, size_t inputs);

// A non-2xx status as a Status: 429 → kRateLimited, 408 and 504 → kDeadlineExceeded, other 5xx
// → kUnavailable (all retried); 400/401/403/404 and the rest → kInvalidArgument with the
// server's own message and the likely cause (a bad key, a wrong model or URL), never retried.
Status StatusForHttpError(const char* provider, const HttpResponse& response);

}  // namespace tala::judges::http
