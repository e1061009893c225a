// Request templates and reply mappings of `tala run`: pure functions, exact strings.

#include <gtest/gtest.h>

#include <cstdlib>

#include "targets/json_path.h"
#include "targets/reply_mapping.h"
#include "targets/request_template.h"

namespace tala::targets {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

TEST(JsonPathTest, PointersAndDottedPathsReachTheSameValues) {
  json reply = json::parse(R"({"data":{"items":[{"text":"a"},{"text":"b/c"}],"a/b":1}})");
  EXPECT_EQ(*FindPath(reply, "/data/items/1/text"), "b/c");
  EXPECT_EQ(*FindPath(reply, "data.items.1.text"), "b/c");
  EXPECT_EQ(*FindPath(reply, "/data/a~1b"), 1);
  EXPECT_EQ(FindPath(reply, "data.items.2.text"), nullptr);
  EXPECT_EQ(FindPath(reply, "data.missing"), nullptr);
  EXPECT_EQ(FindPath(reply, "data.items.x"), nullptr);
}

TEST(RequestTemplateTest, PlaceholdersTakeTheValueOrItsText) {
  ordered_json row = {
      {"id", 7}, {"user_input", "Is it \"open\"?\n}"}, {"tags", {"a", "b"}}, {"user", "ann"}};
  json tmpl = json::parse(
      R"({"q":"{{user_input}}","id":"{{id}}","tags":"{{metadata.tags}}","say":"user {{user}} #{{id}}","n":3})");
  auto body = RenderRequest(tmpl, row);
  ASSERT_TRUE(body) << body.error().ToString();
  json sent = json::parse(*body);
  // The question stays one string value whatever it holds: it cannot reshape the request.
  EXPECT_EQ(sent["q"], "Is it \"open\"?\n}");
  EXPECT_EQ(sent["id"], 7);
  EXPECT_EQ(sent["tags"], json({"a", "b"}));
  EXPECT_EQ(sent["say"], "user ann #7");
  EXPECT_EQ(sent["n"], 3);
  EXPECT_EQ(sent.size(), 5u);
}

TEST(RequestTemplateTest, AnUnknownPlaceholderNamesItAndTheRow) {
  auto body = RenderRequest(json::parse(R"({"q":"{{question}}"})"),
                            ordered_json{{"id", "r1"}, {"user_input", "x"}});
  ASSERT_FALSE(body);
  EXPECT_EQ(body.error().message(),
            "the request template names {{question}}, which golden row \"r1\" does not have");
}

// tala diagnose's experiments give the target its passages (issue 57 item 3): {{contexts}} as
// the list, {{contexts_json}} as its JSON text; a row without given passages renders null and ""
// (the target retrieves them itself). A passage cannot reshape the request.
TEST(RequestTemplateTest, ContextsPlaceholdersCarryTheGivenPassages) {
  json tmpl = json::parse(
      R"({"q":"{{user_input}}","passages":"{{contexts}}","prompt":"Use: {{contexts_json}}"})");
  EXPECT_TRUE(TemplateTakesContexts(tmpl));
  EXPECT_FALSE(TemplateTakesContexts(json::parse(R"({"q":"{{user_input}}","n":[1,"{{id}}"]})")));
  ordered_json row = {{"id", 1}, {"user_input", "q"}, {kGivenContexts, {"a \"b\"", "}c"}}};
  auto body = RenderRequest(tmpl, row);
  ASSERT_TRUE(body) << body.error().ToString();
  json sent = json::parse(*body);
  EXPECT_EQ(sent["passages"], json({"a \"b\"", "}c"}));
  EXPECT_EQ(sent["prompt"], "Use: [\"a \\\"b\\\"\",\"}c\"]");
  EXPECT_EQ(sent.size(), 3u);
  row.erase(kGivenContexts);
  body = RenderRequest(tmpl, row);
  ASSERT_TRUE(body) << body.error().ToString();
  sent = json::parse(*body);
  EXPECT_TRUE(sent["passages"].is_null());
  EXPECT_EQ(sent["prompt"], "Use: ");
}

TEST(RequestTemplateTest, EnvironmentVariablesExpandAndAMissingOneIsNamed) {
  ::setenv("TALA_TEST_TOKEN", "s3cret", 1);
  std::string missing;
  EXPECT_EQ(ExpandEnvironment("Authorization: Bearer ${TALA_TEST_TOKEN}", &missing),
            "Authorization: Bearer s3cret");
  EXPECT_EQ(missing, "");
  EXPECT_EQ(ExpandEnvironment("X: ${TALA_TEST_UNSET_VAR}!", &missing), "X: !");
  EXPECT_EQ(missing, "TALA_TEST_UNSET_VAR");
}

TEST(ReplyMappingTest, DefaultsReadAnswerAndContextObjectsWithIds) {
  auto a = ReadReply(
      R"({"answer":"yes","contexts":[{"id":"d1","text":"one"},{"id":2,"content":"two"}],"usage":{"prompt_tokens":12,"completion_tokens":4},"cost_usd":0.002})",
      TargetSpec{});
  ASSERT_TRUE(a) << a.error().ToString();
  EXPECT_EQ(a->response, "yes");
  EXPECT_EQ(a->contexts, (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(*a->context_ids, (std::vector<std::string>{"d1", "2"}));
  EXPECT_EQ(*a->prompt_tokens, 12);
  EXPECT_EQ(*a->completion_tokens, 4);
  EXPECT_DOUBLE_EQ(*a->cost_usd, 0.002);
}

TEST(ReplyMappingTest, ConfiguredPathsAndStringContexts) {
  TargetSpec spec;
  spec.response = "/output/text";
  spec.contexts = "output.sources";
  spec.context_ids = "output.ids";
  auto a = ReadReply(R"({"output":{"text":"t","sources":["s1","s2"],"ids":["a","b"]}})", spec);
  ASSERT_TRUE(a) << a.error().ToString();
  EXPECT_EQ(a->response, "t");
  EXPECT_EQ(a->contexts, (std::vector<std::string>{"s1", "s2"}));
  EXPECT_EQ(*a->context_ids, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(a->prompt_tokens);
}

TEST(ReplyMappingTest, EveryBadReplyNamesWhatFailed) {
  TargetSpec spec;
  auto message = [&](const char* body) { return ReadReply(body, spec).error().message(); };
  EXPECT_EQ(message("<html>oops</html>"), "the reply is not JSON: <html>oops</html>");
  EXPECT_EQ(message("[1,2]"), "the reply is a JSON array, not an object");
  EXPECT_EQ(message(R"({"contexts":[]})"), "the reply has no response at answer or response");
  EXPECT_EQ(message(R"({"answer":3,"contexts":[]})"),
            "response at answer: expected a string, got number");
  EXPECT_EQ(message(R"({"answer":"a"})"),
            "the reply has no contexts at contexts or retrieved_contexts");
  EXPECT_EQ(message(R"({"answer":"a","contexts":"c"})"),
            "contexts at contexts: expected an array, got string");
  EXPECT_EQ(message(R"({"answer":"a","contexts":[{"title":"x"}]})"),
            "contexts[0]: no string field \"text\"");
  EXPECT_EQ(message(R"({"error":"index is down"})"), "the target said: index is down");
  EXPECT_EQ(message(R"({"answer":"a","contexts":[],"usage":{"prompt_tokens":"many"}})"),
            "figure at usage.prompt_tokens: expected a number, got string");
  spec.response = "data.answer";
  EXPECT_EQ(message(R"({"answer":"a","contexts":[]})"), "the reply has no response at data.answer");
  EXPECT_EQ(ReadReply(R"({"answer":"a","contexts":[]})", spec).error().code(),
            ErrorCode::kBadReply);
}

}  // namespace
}  // namespace tala::targets
