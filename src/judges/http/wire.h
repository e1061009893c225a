#pragma once
// Plain-data HTTP requests and responses, and the model settings a provider builds requests
// from. No sockets here: the runtime's HTTP client sends what these describe.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tala::judges::http {

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  std::string method = "POST";                // POST or PUT with the body; GET without
  size_t max_reply_bytes = size_t{64} << 20;  // a longer reply fails the call, never the process
};

struct HttpResponse {
  long status = 0;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // names in lower case
  // The first header named `name` (lower case), or empty.
  std::string Header(const std::string& name) const;
};

// What one judge model is and what it accepts. Per-judge capabilities: some models take no
// temperature or seed, some servers have no structured output.
struct ModelSettings {
  std::string provider;    // "openai" | "anthropic"
  std::string model;       // "gpt-4o-mini"
  std::string base_url;    // ".../v1"
  std::string api_key;     // empty: no auth header (local servers)
  double temperature = 0;  // judges should be as repeatable as the server allows
  bool send_temperature = true;
  std::optional<int64_t> seed = 42;  // sent when set (OpenAI-compatible servers)
  int max_tokens = 2048;             // completion limit per call
  bool structured_output = true;     // response_format json_schema; off: JSON by instructions
  // OpenAI: send each call's row key as prompt_cache_key, so a row's calls reach the same
  // prompt cache. Off for servers that refuse fields they do not know (engine/llm_setup.cc).
  bool prompt_cache_key = false;
};

// A token of the reply that is a whole number ("7"), where it starts in the text, and the
// log-probabilities of the tokens the model weighed in its place (OpenAI's top_logprobs).
struct NumberToken {
  size_t offset = 0;
  std::string token;
  std::vector<std::pair<std::string, double>> top;
};

// What a call asks beyond the messages: several answers in one request (OpenAI's `n`), and the
// log-probabilities of the reply's tokens. Servers that support neither ignore them.
struct ChatExtras {
  int choices = 1;
  bool logprobs = false;
  std::string cache_key;  // the row's key (ModelCall::cache_key); sent as prompt_cache_key
  // ModelCall::row_first: no schema goes first (OpenAI gets JSON mode instead), so the row's
  // calls share their start.
  bool row_first = false;
};

struct ChatReply {
  std::string text;
  std::vector<std::string> more_choices;   // choices[1..] when several were asked for
  std::vector<NumberToken> number_tokens;  // with logprobs: the number tokens of the text
  // The model version and backend configuration the server says answered ("gpt-4o-mini-2024-
  // 07-18", "fp_44709d6fcb"): they change under a fixed model name, and the judge with them.
  std::string model, system_fingerprint;
  std::string finish_reason;  // normalised: "stop", "length", or as the server said
  // Every input token, whether the provider's prompt cache served it or not; of them, those read
  // from that cache (billed at its cached price) and those written to it (Anthropic bills a
  // write above the input price).
  int64_t prompt_tokens = 0;
  int64_t cache_read_tokens = 0;
  int64_t cache_write_tokens = 0;
  int64_t completion_tokens = 0;
};

struct EmbeddingsReply {
  std::vector<std::vector<double>> vectors;  // in input order
  int64_t prompt_tokens = 0;
};

}  // namespace tala::judges::http
