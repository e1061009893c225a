#include "judges/http/provider.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace tala::judges::http {

namespace {

using nlohmann::json;

Status Bad(std::string message) { return {ErrorCode::kBadReply, std::move(message)}; }

std::string TrimSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// The server's own error text ({"error": {"message": ...}} for both providers), else the body.
std::string ServerMessage(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_object()) {
    auto e = j.find("error");
    if (e != j.end() && e->is_object()) {
      auto m = e->find("message");
      if (m != e->end() && m->is_string()) return m->get<std::string>();
    }
    if (e != j.end() && e->is_string()) return e->get<std::string>();
  }
  return body.substr(0, 200);
}

Result<json> ParseBody(const char* provider, const HttpResponse& r) {
  if (r.status < 200 || r.status >= 300) return StatusForHttpError(provider, r);
  json j = json::parse(r.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Bad(std::string(provider) + ": the server's reply is not a JSON object (" +
               std::to_string(r.body.size()) + " bytes; truncated or malformed)");
  }
  return j;
}

// A JSON POST to `base_url` + `path`, the key sent after `auth_prefix` ("Authorization: Bearer ")
// when there is one.
HttpRequest JsonPost(const ModelSettings& s, const char* path, std::vector<std::string> headers,
                     const json& body, const std::string& auth_prefix) {
  headers.insert(headers.begin(), "Content-Type: application/json");
  if (!s.api_key.empty()) headers.push_back(auth_prefix + s.api_key);
  return {TrimSlash(s.base_url) + path, std::move(headers),
          body.dump(-1, ' ', false, json::error_handler_t::replace)};
}

int64_t IntAt(const json& j, const char* object, const char* field) {
  auto o = j.find(object);
  if (o == j.end() || !o->is_object()) return 0;
  auto f = o->find(field);
  return f != o->end() && f->is_number_integer() ? f->get<int64_t>() : 0;
}

bool IsWholeNumber(const std::string& token) {
  size_t b = token.find_first_not_of(' ');
  if (b == std::string::npos) return false;
  return token.find_first_not_of("0123456789", b) == std::string::npos;
}

// choices[0].logprobs.content: each token with its top alternatives; kept for whole-number
// tokens only (what a score is), with their offsets in the text the tokens spell.
std::vector<NumberToken> NumberTokens(const json& choice) {
  std::vector<NumberToken> out;
  auto logprobs = choice.find("logprobs");
  if (logprobs == choice.end() || !logprobs->is_object()) return out;
  auto content = logprobs->find("content");
  if (content == logprobs->end() || !content->is_array()) return out;
  size_t offset = 0;
  for (const json& t : *content) {
    if (!t.is_object() || !t.contains("token") || !t["token"].is_string()) break;
    std::string token = t["token"].get<std::string>();
    if (IsWholeNumber(token)) {
      NumberToken n{offset, token, {}};
      for (const json& alt : t.value("top_logprobs", json::array())) {
        if (alt.is_object() && alt.contains("token") && alt["token"].is_string() &&
            alt.contains("logprob") && alt["logprob"].is_number()) {
          n.top.emplace_back(alt["token"].get<std::string>(), alt["logprob"].get<double>());
        }
      }
      out.push_back(std::move(n));
    }
    offset += token.size();
  }
  return out;
}

class OpenAiChat : public ChatProvider {
 public:
  const char* name() const override { return "openai"; }

  HttpRequest BuildChat(const ModelSettings& s, const std::vector<llm::ChatMessage>& messages,
                        const std::string& schema, const ChatExtras& extras) const override {
    json body = {{"model", s.model}, {"max_tokens", s.max_tokens}};
    if (extras.choices > 1) body["n"] = extras.choices;
    if (extras.logprobs) {
      body["logprobs"] = true;
      body["top_logprobs"] = 10;
    }
    json list = json::array();
    for (const auto& m : messages) list.push_back({{"role", m.role}, {"content", m.content}});
    body["messages"] = std::move(list);
    if (s.send_temperature) body["temperature"] = s.temperature;
    if (s.seed) body["seed"] = *s.seed;
    if (s.prompt_cache_key && !extras.cache_key.empty()) {
      body["prompt_cache_key"] = extras.cache_key;
    }
    if (s.structured_output && extras.row_first) {
      // A schema would be read before the messages and differ by task: JSON mode keeps the
      // row's start shared, and the instructions give the reply's shape.
      body["response_format"] = {{"type", "json_object"}};
    } else if (s.structured_output && !schema.empty()) {
      body["response_format"] = {
          {"type", "json_schema"},
          {"json_schema",
           {{"name", "verdicts"}, {"strict", true}, {"schema", json::parse(schema)}}}};
    }
    return JsonPost(s, "/chat/completions", {}, body, "Authorization: Bearer ");
  }

  Result<ChatReply> ParseChat(const HttpResponse& r) const override {
    TALA_ASSIGN_OR_RETURN(json j, ParseBody("openai", r));
    auto choices = j.find("choices");
    if (choices == j.end() || !choices->is_array() || choices->empty() ||
        !(*choices)[0].is_object()) {
      return Bad("openai: the reply has no choices[0]");
    }
    const json& choice = (*choices)[0];
    auto message = choice.find("message");
    if (message == choice.end() || !message->is_object()) {
      return Bad("openai: choices[0] has no message");
    }
    ChatReply out;
    auto content = message->find("content");
    if (content != message->end() && content->is_string()) out.text = content->get<std::string>();
    auto refusal = message->find("refusal");
    if (out.text.empty() && refusal != message->end() && refusal->is_string()) {
      return Bad("openai: the model refused: " + refusal->get<std::string>());
    }
    auto finish = choice.find("finish_reason");
    if (finish != choice.end() && finish->is_string())
      out.finish_reason = finish->get<std::string>();
    out.prompt_tokens = IntAt(j, "usage", "prompt_tokens");
    out.completion_tokens = IntAt(j, "usage", "completion_tokens");
    // Cached input is part of prompt_tokens in OpenAI's usage.
    auto usage = j.find("usage");
    if (usage != j.end() && usage->is_object()) {
      out.cache_read_tokens = IntAt(*usage, "prompt_tokens_details", "cached_tokens");
    }
    for (size_t i = 1; i < choices->size(); ++i) {
      const json& more = (*choices)[i];
      if (!more.is_object() || !more.contains("message") || !more["message"].is_object()) continue;
      auto text = more["message"].find("content");
      if (text != more["message"].end() && text->is_string()) {
        out.more_choices.push_back(text->get<std::string>());
      }
    }
    out.number_tokens = NumberTokens(choice);
    for (auto [key, field] :
         {std::pair{"model", &out.model}, {"system_fingerprint", &out.system_fingerprint}}) {
      auto it = j.find(key);
      if (it != j.end() && it->is_string()) *field = it->get<std::string>();
    }
    return out;
  }
};

class AnthropicMessages : public ChatProvider {
 public:
  const char* name() const override { return "anthropic"; }

  HttpRequest BuildChat(const ModelSettings& s, const std::vector<llm::ChatMessage>& messages,
                        const std::string& /*schema*/,
                        const ChatExtras& /*extras*/) const override {
    // No response_format in the Messages API: the prompt's JSON instructions carry the shape.
    json body = {{"model", s.model}, {"max_tokens", s.max_tokens}};
    json list = json::array();
    std::string system;
    for (const auto& m : messages) {
      if (m.role == "system") {
        system += (system.empty() ? "" : "\n\n") + m.content;
        continue;
      }
      json block = {{"type", "text"}, {"text", m.content}};
      // The row-first layout's row data: the row's calls share the prompt up to here.
      if (m.cache_break) block["cache_control"] = {{"type", "ephemeral"}};
      // Messages alternate roles: two user messages in a row become blocks of one.
      if (!list.empty() && list.back()["role"] == m.role) {
        json& content = list.back()["content"];
        if (content.is_string()) content = json::array({{{"type", "text"}, {"text", content}}});
        content.push_back(std::move(block));
      } else if (m.cache_break) {
        list.push_back({{"role", m.role}, {"content", json::array({std::move(block)})}});
      } else {
        list.push_back({{"role", m.role}, {"content", m.content}});
      }
    }
    // The instructions are the start every call of a prompt shares, row after row: marked for
    // the prompt cache, they are read from it at a tenth of the input price once they reach the
    // model's minimum (1,024 or 2,048 tokens); a shorter block is simply not cached, at no cost.
    if (!system.empty()) {
      body["system"] = json::array(
          {{{"type", "text"}, {"text", system}, {"cache_control", {{"type", "ephemeral"}}}}});
    }
    body["messages"] = std::move(list);
    if (s.send_temperature) body["temperature"] = s.temperature;
    return JsonPost(s, "/messages", {"anthropic-version: 2023-06-01"}, body, "x-api-key: ");
  }

  Result<ChatReply> ParseChat(const HttpResponse& r) const override {
    TALA_ASSIGN_OR_RETURN(json j, ParseBody("anthropic", r));
    auto content = j.find("content");
    if (content == j.end() || !content->is_array())
      return Bad("anthropic: the reply has no content");
    ChatReply out;
    for (const json& block : *content) {
      if (!block.is_object()) continue;
      auto type = block.find("type");
      auto text = block.find("text");
      if (type != block.end() && *type == "text" && text != block.end() && text->is_string()) {
        out.text += text->get<std::string>();
      }
    }
    auto stop = j.find("stop_reason");
    if (stop != j.end() && stop->is_string()) {
      std::string reason = stop->get<std::string>();
      out.finish_reason = reason == "max_tokens" ? "length"
                          : reason == "end_turn" ? "stop"
                                                 : reason;
    }
    // Anthropic's input_tokens leaves out what the cache served and what was written to it:
    // the prompt is the three together.
    out.cache_read_tokens = IntAt(j, "usage", "cache_read_input_tokens");
    out.cache_write_tokens = IntAt(j, "usage", "cache_creation_input_tokens");
    out.prompt_tokens =
        IntAt(j, "usage", "input_tokens") + out.cache_read_tokens + out.cache_write_tokens;
    out.completion_tokens = IntAt(j, "usage", "output_tokens");
    return out;
  }
};

}  // namespace

std::string HttpResponse::Header(const std::string& name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return v;
  }
  return "";
}

Result<std::unique_ptr<ChatProvider>> MakeChatProvider(const std::string& provider) {
  if (provider == "openai") return std::unique_ptr<ChatProvider>(new OpenAiChat());
  if (provider == "anthropic") return std::unique_ptr<ChatProvider>(new AnthropicMessages());
  return NotFound("unknown provider \"" + provider + "\"; known: openai, anthropic");
}

HttpRequest BuildEmbeddingsRequest(const ModelSettings& s, const std::vector<std::string>& inputs) {
  json body = {{"model", s.model}, {"input", inputs}};
  return JsonPost(s, "/embeddings", {}, body, "Authorization: Bearer ");
}

Result<EmbeddingsReply> ParseEmbeddingsResponse(const HttpResponse& r, size_t inputs) {
  TALA_ASSIGN_OR_RETURN(json j, ParseBody("openai embeddings", r));
  auto data = j.find("data");
  if (data == j.end() || !data->is_array()) return Bad("embeddings: the reply has no data array");
  if (data->size() != inputs) {
    return Bad("embeddings: expected " + std::to_string(inputs) + " vectors, got " +
               std::to_string(data->size()));
  }
  EmbeddingsReply out;
  out.vectors.resize(inputs);
  for (size_t i = 0; i < data->size(); ++i) {
    const json& item = (*data)[i];
    size_t index = i;  // "index" says which input a vector belongs to
    if (auto it = item.find("index"); it != item.end() && it->is_number_unsigned()) {
      index = it->get<size_t>();
    }
    auto vec = item.find("embedding");
    if (index >= inputs || vec == item.end() || !vec->is_array() || vec->empty()) {
      return Bad("embeddings: data[" + std::to_string(i) + "] has no embedding for an input");
    }
    for (const json& x : *vec) {
      if (!x.is_number())
        return Bad("embeddings: data[" + std::to_string(i) + "] holds a non-number");
      out.vectors[index].push_back(x.get<double>());
    }
  }
  for (const auto& v : out.vectors) {
    if (v.empty()) return Bad("embeddings: an input got no vector");
  }
  out.prompt_tokens = IntAt(j, "usage", "prompt_tokens");
  return out;
}

Status StatusForHttpError(const char* provider, const HttpResponse& r) {
  std::string what =
      std::string(provider) + ": HTTP " + std::to_string(r.status) + ": " + ServerMessage(r.body);
  if (r.status == 429) return {ErrorCode::kRateLimited, what};
  if (r.status == 408 || r.status == 504) return {ErrorCode::kDeadlineExceeded, what};
  if (r.status >= 500) return {ErrorCode::kUnavailable, what};
  if (r.status == 401 || r.status == 403) {
    return InvalidArgument(what + " (check the API key: OPENAI_API_KEY or ANTHROPIC_API_KEY)");
  }
  if (r.status == 404) return NotFound(what + " (check --base-url and the model name)");
  return InvalidArgument(what);
}

}  // namespace tala::judges::http
