#include "judges/http/provider.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tala::judges::http {
namespace {

using nlohmann::json;

ModelSettings OpenAi() {
  ModelSettings s;
  s.provider = "openai";
  s.model = "gpt-4o-mini";
  s.base_url = "http://127.0.0.1:9/v1/";
  s.api_key = "sk-test";
  return s;
}

bool HasHeader(const HttpRequest& r, const std::string& h) {
  return std::find(r.headers.begin(), r.headers.end(), h) != r.headers.end();
}

TEST(OpenAiChatTest, BuildsAChatCompletionsRequestWithSchemaSeedAndTemperature) {
  auto p = MakeChatProvider("openai");
  ASSERT_TRUE(p.has_value());
  HttpRequest r =
      (*p)->BuildChat(OpenAi(), {{"system", "S"}, {"user", "U"}}, R"({"type":"object"})");
  EXPECT_EQ(r.url, "http://127.0.0.1:9/v1/chat/completions");
  EXPECT_TRUE(HasHeader(r, "Authorization: Bearer sk-test"));
  json body = json::parse(r.body);
  EXPECT_EQ(body["model"], "gpt-4o-mini");
  EXPECT_EQ(body["temperature"], 0.0);
  EXPECT_EQ(body["seed"], 42);
  EXPECT_EQ(body["messages"][1]["content"], "U");
  EXPECT_EQ(body["response_format"]["type"], "json_schema");
  EXPECT_EQ(body["response_format"]["json_schema"]["strict"], true);
}

// A row's key goes as prompt_cache_key only where the settings allow it (api.openai.com by
// default: compatible servers may refuse fields they do not know).
TEST(OpenAiChatTest, ThePromptCacheKeyIsSentOnlyWhenAllowed) {
  auto p = MakeChatProvider("openai");
  ModelSettings s = OpenAi();
  json off = json::parse((*p)->BuildChat(s, {{"user", "U"}}, "{}", {1, false, "tala-1"}).body);
  EXPECT_FALSE(off.contains("prompt_cache_key"));
  s.prompt_cache_key = true;
  json on = json::parse((*p)->BuildChat(s, {{"user", "U"}}, "{}", {1, false, "tala-1"}).body);
  EXPECT_EQ(on["prompt_cache_key"], "tala-1");
  json none = json::parse((*p)->BuildChat(s, {{"user", "U"}}, "{}").body);
  EXPECT_FALSE(none.contains("prompt_cache_key"));
}

TEST(OpenAiChatTest, CapabilitySettingsLeaveFieldsOut) {
  ModelSettings s = OpenAi();
  s.send_temperature = false;
  s.seed.reset();
  s.structured_output = false;
  s.api_key.clear();
  HttpRequest r = (*MakeChatProvider("openai"))->BuildChat(s, {{"user", "U"}}, "{}");
  json body = json::parse(r.body);
  EXPECT_FALSE(body.contains("temperature"));
  EXPECT_FALSE(body.contains("seed"));
  EXPECT_FALSE(body.contains("response_format"));
  for (const auto& h : r.headers) EXPECT_EQ(h.find("Authorization"), std::string::npos);
}

TEST(OpenAiChatTest, ParsesContentFinishReasonAndUsage) {
  HttpResponse r{200,
                 R"({"choices":[{"message":{"role":"assistant","content":"{\"a\":1}"},
                     "finish_reason":"length"}],"usage":{"prompt_tokens":12,"completion_tokens":5}})",
                 {}};
  auto reply = (*MakeChatProvider("openai"))->ParseChat(r);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->text, "{\"a\":1}");
  EXPECT_EQ(reply->finish_reason, "length");
  EXPECT_EQ(reply->prompt_tokens, 12);
  EXPECT_EQ(reply->completion_tokens, 5);
}

TEST(OpenAiChatTest, ATruncatedBodyIsABadReply) {
  HttpResponse r{200, R"({"choices":[{"message":{"content":"{\"cl)", {}};
  auto reply = (*MakeChatProvider("openai"))->ParseChat(r);
  ASSERT_FALSE(reply.has_value());
  EXPECT_EQ(reply.error().code(), ErrorCode::kBadReply);
}

TEST(AnthropicMessagesTest, PutsTheSystemPromptApartAndUsesItsHeaders) {
  ModelSettings s = OpenAi();
  s.provider = "anthropic";
  s.model = "claude-3-5-haiku-latest";
  s.base_url = "https://api.anthropic.com/v1";
  HttpRequest r =
      (*MakeChatProvider("anthropic"))->BuildChat(s, {{"system", "S"}, {"user", "U"}}, "{}");
  EXPECT_EQ(r.url, "https://api.anthropic.com/v1/messages");
  EXPECT_TRUE(HasHeader(r, "x-api-key: sk-test"));
  EXPECT_TRUE(HasHeader(r, "anthropic-version: 2023-06-01"));
  json body = json::parse(r.body);
  // The instructions go as one block marked for the prompt cache.
  ASSERT_TRUE(body["system"].is_array());
  ASSERT_EQ(body["system"].size(), 1u);
  EXPECT_EQ(body["system"][0]["text"], "S");
  EXPECT_EQ(body["system"][0]["cache_control"]["type"], "ephemeral");
  ASSERT_EQ(body["messages"].size(), 1u);
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_TRUE(body.contains("max_tokens"));
}

// The row-first layout (issue 56): the row's data ends the start the row's calls share. Anthropic
// gets a breakpoint there, the task as a second block of the same user turn (roles alternate),
// and a repair exchange after it as before; OpenAI gets JSON mode, no schema ahead of the start.
TEST(AnthropicMessagesTest, RowFirstMarksTheRowsDataAndJoinsTheTaskToItsTurn) {
  ModelSettings s = OpenAi();
  s.provider = "anthropic";
  std::vector<llm::ChatMessage> messages = {{"system", "FRAME"},
                                            {"user", "{\"question\":\"Q\"}", true},
                                            {"user", "TASK\n{}"},
                                            {"assistant", "not json"},
                                            {"user", "REPAIR"}};
  json body = json::parse(
      (*MakeChatProvider("anthropic"))->BuildChat(s, messages, "{}", {.row_first = true}).body);
  ASSERT_EQ(body["messages"].size(), 3u);
  const json& turn = body["messages"][0];
  EXPECT_EQ(turn["role"], "user");
  ASSERT_EQ(turn["content"].size(), 2u);
  EXPECT_EQ(turn["content"][0]["text"], "{\"question\":\"Q\"}");
  EXPECT_EQ(turn["content"][0]["cache_control"]["type"], "ephemeral");
  EXPECT_EQ(turn["content"][1]["text"], "TASK\n{}");
  EXPECT_FALSE(turn["content"][1].contains("cache_control"));
  EXPECT_EQ(body["messages"][1]["role"], "assistant");
  EXPECT_EQ(body["messages"][2]["content"], "REPAIR");
  json openai = json::parse(
      (*MakeChatProvider("openai"))->BuildChat(OpenAi(), messages, "{}", {.row_first = true}).body);
  EXPECT_EQ(openai["response_format"], json({{"type", "json_object"}}));
  ASSERT_EQ(openai["messages"].size(), 5u);
  EXPECT_EQ(openai["messages"][1]["content"], "{\"question\":\"Q\"}");
}

TEST(AnthropicMessagesTest, ParsesTextBlocksAndMapsMaxTokensToLength) {
  HttpResponse r{200,
                 R"({"content":[{"type":"text","text":"{\"x\":"},{"type":"text","text":"1}"}],
                     "stop_reason":"max_tokens","usage":{"input_tokens":7,"output_tokens":3}})",
                 {}};
  auto reply = (*MakeChatProvider("anthropic"))->ParseChat(r);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->text, "{\"x\":1}");
  EXPECT_EQ(reply->finish_reason, "length");
  EXPECT_EQ(reply->prompt_tokens, 7);
}

TEST(HttpErrorTest, StatusCodesMapToRetryableAndFatalErrors) {
  auto code = [](long status) {
    return StatusForHttpError("openai", {status, R"({"error":{"message":"nope"}})", {}}).code();
  };
  EXPECT_EQ(code(429), ErrorCode::kRateLimited);
  EXPECT_EQ(code(500), ErrorCode::kUnavailable);
  EXPECT_EQ(code(503), ErrorCode::kUnavailable);
  EXPECT_EQ(code(504), ErrorCode::kDeadlineExceeded);
  EXPECT_EQ(code(400), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code(404), ErrorCode::kNotFound);
  Status unauthorized =
      StatusForHttpError("openai", {401, R"({"error":{"message":"bad key"}})", {}});
  EXPECT_NE(unauthorized.message().find("bad key"), std::string::npos);
  EXPECT_NE(unauthorized.message().find("check the API key"), std::string::npos);
}

TEST(EmbeddingsTest, OrdersVectorsByIndexAndChecksTheCount) {
  ModelSettings s = OpenAi();
  s.model = "text-embedding-3-small";
  HttpRequest req = BuildEmbeddingsRequest(s, {"a", "b"});
  EXPECT_EQ(req.url, "http://127.0.0.1:9/v1/embeddings");
  EXPECT_EQ(json::parse(req.body)["input"].size(), 2u);
  HttpResponse r{200,
                 R"({"data":[{"index":1,"embedding":[0,1]},{"index":0,"embedding":[1,0]}],
                     "usage":{"prompt_tokens":2}})",
                 {}};
  auto reply = ParseEmbeddingsResponse(r, 2);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->vectors[0], (std::vector<double>{1, 0}));
  EXPECT_EQ(reply->vectors[1], (std::vector<double>{0, 1}));
  EXPECT_EQ(ParseEmbeddingsResponse(r, 3).error().code(), ErrorCode::kBadReply);
}

}  // namespace
}  // namespace tala::judges::http
