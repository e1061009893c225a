// OTLP/HTTP JSON traces into rows by the GenAI semantic conventions (src/serve/otlp.h).

#include "serve/otlp.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tala::serve {
namespace {

using json = nlohmann::json;

json Attr(const std::string& key, json value) { return {{"key", key}, {"value", value}}; }
json Str(const std::string& s) { return {{"stringValue", s}}; }
// OTLP's structured values: a kvlist, an array, and a message made of them.
json KvList(std::vector<json> kvs) { return {{"kvlistValue", {{"values", kvs}}}}; }
json Array(std::vector<json> values) { return {{"arrayValue", {{"values", values}}}}; }
json Message(const std::string& role, const std::string& text) {
  return KvList(
      {Attr("role", Str(role)),
       Attr("parts", Array({KvList({Attr("type", Str("text")), Attr("content", Str(text))})}))});
}

// Trace t1: current conventions, messages as a JSON string, a retrieval span with two documents.
// Trace t2: structured messages (kvlist/array values) and no retrieval.
// Trace t3: an older instrumentation's events. Trace t4: a retrieval span only (skipped).
json Text(const std::string& role, const std::string& text) {
  return {{"role", role}, {"parts", json::array({{{"type", "text"}, {"content", text}}})}};
}

json Span(const std::string& trace, const std::string& id, std::vector<json> attrs,
          json events = json::array()) {
  return {{"traceId", trace}, {"spanId", id}, {"attributes", attrs}, {"events", events}};
}

std::string Body() {
  json input =
      json::array({Text("system", "Be brief."), Text("user", "When does the ferry sail?")});
  json output = json::array({Text("assistant", "Every 20 minutes.")});
  json docs = json::array({{{"id", "ferry"}, {"content", "The ferry sails every 20 minutes."}},
                           {{"id", "bikes"}, {"content", "Bikes ride free."}}});
  json t1_chat = Span(
      "t1", "a",
      {Attr("gen_ai.operation.name", Str("chat")), Attr("gen_ai.input.messages", Str(input.dump())),
       Attr("gen_ai.output.messages", Str(output.dump()))});
  t1_chat["endTimeUnixNano"] = "1796371200000000000";
  json t1_retrieval = Span("t1", "b",
                           {Attr("gen_ai.operation.name", Str("retrieval")),
                            Attr("gen_ai.retrieval.documents", Str(docs.dump()))});
  json t2 = Span("t2", "c",
                 {Attr("gen_ai.operation.name", Str("chat")),
                  Attr("gen_ai.input.messages", Array({Message("user", "Is the tram free?")})),
                  Attr("gen_ai.output.messages", Array({Message("assistant", "No.")}))});
  json user_event = {{"name", "gen_ai.user.message"},
                     {"attributes", json::array({Attr("content", Str("Where is Pier 3?"))})}};
  json choice_event = {
      {"name", "gen_ai.choice"},
      {"attributes",
       json::array({Attr("message", Str(R"({"role":"assistant","content":"At the harbour."})"))})}};
  json t3 = Span("t3", "d", {Attr("gen_ai.operation.name", Str("chat"))},
                 json::array({user_event, choice_event}));
  json t4 = Span("t4", "e", {Attr("gen_ai.operation.name", Str("retrieval"))});
  json resource = {{"attributes", json::array({Attr("service.name", Str("faq-bot")),
                                               Attr("service.version", Str("1.4"))})}};
  json scope = {{"spans", json::array({t1_chat, t1_retrieval, t2, t3, t4})}};
  json body = {{"resourceSpans",
                json::array({{{"resource", resource}, {"scopeSpans", json::array({scope})}}})}};
  return body.dump();
}

std::vector<json> Rows(const OtlpRows& r) {
  std::vector<json> out;
  size_t at = 0;
  while (at < r.jsonl.size()) {
    size_t nl = r.jsonl.find('\n', at);
    out.push_back(json::parse(r.jsonl.substr(at, nl - at)));
    at = nl + 1;
  }
  return out;
}

TEST(OtlpTest, TracesBecomeRowsByTheGenAiConventions) {
  auto r = OtlpToRows(Body());
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r->traces, 4);
  EXPECT_EQ(r->skipped, 1);
  auto rows = Rows(*r);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["id"], "t1");
  EXPECT_EQ(rows[0]["user_input"], "When does the ferry sail?");  // the user's, not the system's
  EXPECT_EQ(rows[0]["response"], "Every 20 minutes.");
  EXPECT_EQ(rows[0]["retrieved_contexts"],
            json({"The ferry sails every 20 minutes.", "Bikes ride free."}));
  EXPECT_EQ(rows[0]["retrieved_context_ids"], json({"ferry", "bikes"}));
  EXPECT_EQ(rows[0]["timestamp"], 1796371200.0);
  EXPECT_EQ(rows[0]["tags"], json({{"service", "faq-bot"}, {"version", "1.4"}}));
  EXPECT_EQ(rows[1]["user_input"], "Is the tram free?");
  EXPECT_EQ(rows[1]["response"], "No.");
  EXPECT_FALSE(rows[1].contains("retrieved_contexts"));
  EXPECT_EQ(rows[2]["user_input"], "Where is Pier 3?");
  EXPECT_EQ(rows[2]["response"], "At the harbour.");
}

TEST(OtlpTest, WhatIsNotOtlpIsADataError) {
  EXPECT_EQ(OtlpToRows("not json").error().code(), ErrorCode::kDataError);
  EXPECT_EQ(OtlpToRows("{\"spans\": []}").error().where().field, "resourceSpans");
  auto no_id = OtlpToRows(R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"x"}]}]}]})");
  ASSERT_FALSE(no_id.has_value());
  EXPECT_NE(no_id.error().where().field.find("traceId"), std::string::npos);
  auto empty = OtlpToRows(R"({"resourceSpans":[]})");
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(empty->traces, 0);
}

}  // namespace
}  // namespace tala::serve

namespace tala::serve {
namespace {

json Child(const std::string& trace, const std::string& id, const std::string& parent,
           std::vector<json> attrs, json events = json::array()) {
  json span = Span(trace, id, std::move(attrs), std::move(events));
  span["parentSpanId"] = parent;
  span["endTimeUnixNano"] = "1796371200000000000";
  return span;
}

json Request(std::vector<json> spans) {
  return {{"resourceSpans", json::array({{{"scopeSpans", json::array({{{"spans", spans}}})}}})}};
}

TEST(OtlpStylesTest, OpenInferenceMapsTheRootChainTheRetrieverAndTheLlm) {
  json body = Request({
      Child("oi", "1", "",
            {Attr("openinference.span.kind", Str("CHAIN")),
             Attr("input.value", Str("When does the ferry sail?")),
             Attr("output.value", Str("Every 20 minutes from Pier 3."))}),
      Child(
          "oi", "2", "1",
          {Attr("openinference.span.kind", Str("RETRIEVER")),
           Attr("input.value", Str("When does the ferry sail?")),
           Attr("retrieval.documents.0.document.id", Str("timetable#2")),
           Attr("retrieval.documents.0.document.content",
                Str("The ferry sails every 20 minutes from Pier 3.")),
           Attr("retrieval.documents.1.document.id", Str("fares#1")),
           Attr("retrieval.documents.1.document.content", Str("A single ride costs 2.40 euros."))}),
      // The LLM's own prompt wraps the question in a template: the chain's is kept.
      Child("oi", "3", "1",
            {Attr("openinference.span.kind", Str("LLM")),
             Attr("llm.input_messages.0.message.role", Str("system")),
             Attr("llm.input_messages.0.message.content", Str("Answer from the context.")),
             Attr("llm.input_messages.1.message.role", Str("user")),
             Attr("llm.input_messages.1.message.content",
                  Str("Context: ...\nQuery: When does the ferry sail?")),
             Attr("llm.output_messages.0.message.role", Str("assistant")),
             Attr("llm.output_messages.0.message.content", Str("Every 20 minutes from Pier 3."))}),
  });
  auto rows = OtlpToRows(body.dump());
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  ASSERT_EQ(rows->skipped, 0);
  json row = json::parse(rows->jsonl);
  EXPECT_EQ(row["user_input"], "When does the ferry sail?");
  EXPECT_EQ(row["response"], "Every 20 minutes from Pier 3.");
  EXPECT_EQ(row["retrieved_contexts"], json({"The ferry sails every 20 minutes from Pier 3.",
                                             "A single ride costs 2.40 euros."}));
  EXPECT_EQ(row["retrieved_context_ids"], json({"timetable#2", "fares#1"}));
  EXPECT_EQ(row["timestamp"], 1796371200.0);
}

TEST(OtlpStylesTest, OpenLlmetryIndexedPromptsAndCompletionsMapToARow) {
  json body = Request({
      Child("ol", "1", "",
            {Attr("llm.request.type", Str("chat")), Attr("gen_ai.system", Str("openai")),
             Attr("gen_ai.prompt.0.role", Str("system")),
             Attr("gen_ai.prompt.0.content", Str("Be brief.")),
             Attr("gen_ai.prompt.1.role", Str("user")),
             Attr("gen_ai.prompt.1.content", Str("When does the ferry sail?")),
             Attr("gen_ai.completion.0.role", Str("assistant")),
             Attr("gen_ai.completion.0.content", Str("Every 20 minutes."))}),
      Child("ol", "2", "1",
            {Attr("gen_ai.operation.name", Str("retrieval")),
             Attr("gen_ai.retrieval.documents",
                  Str(R"([{"id":"timetable#2","content":"The ferry sails every 20 minutes."}])"))}),
  });
  auto rows = OtlpToRows(body.dump());
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  json row = json::parse(rows->jsonl);
  EXPECT_EQ(row["user_input"], "When does the ferry sail?");
  EXPECT_EQ(row["response"], "Every 20 minutes.");
  EXPECT_EQ(row["retrieved_context_ids"], json({"timetable#2"}));
}

TEST(OtlpStylesTest, ContentOnTheInferenceDetailsEventMapsLikeSpanAttributes) {
  json event = {
      {"name", "gen_ai.client.inference.operation.details"},
      {"attributes",
       json::array({Attr("gen_ai.input.messages",
                         Str(json::array({Text("user", "When does the ferry sail?")}).dump())),
                    Attr("gen_ai.output.messages",
                         Str(json::array({Text("assistant", "Every 20 minutes.")}).dump()))})}};
  json body = Request(
      {Child("ev", "1", "", {Attr("gen_ai.operation.name", Str("chat"))}, json::array({event}))});
  auto rows = OtlpToRows(body.dump());
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  ASSERT_EQ(rows->skipped, 0);
  json row = json::parse(rows->jsonl);
  EXPECT_EQ(row["user_input"], "When does the ferry sail?");
  EXPECT_EQ(row["response"], "Every 20 minutes.");
}

}  // namespace
}  // namespace tala::serve
