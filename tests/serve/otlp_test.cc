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
