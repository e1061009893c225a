// OTLP/HTTP protobuf: bodies made by protobuf's own encoder and one recorded from the
// OpenTelemetry JS SDK's proto exporter (tools/record_otlp_js_fixture.js) map to the rows the
// JSON form gives.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "serve/otlp.h"
#include "serve/otlp_trace.pb.h"

namespace tala::serve {
namespace {

using json = nlohmann::json;

void Attribute(google::protobuf::RepeatedPtrField<tala::otlp::KeyValue>* list,
               const std::string& key, const std::string& value) {
  auto* kv = list->Add();
  kv->set_key(key);
  kv->mutable_value()->set_string_value(value);
}

std::string Request() {
  tala::otlp::ExportTraceServiceRequest request;
  auto* rs = request.add_resource_spans();
  Attribute(rs->mutable_resource()->mutable_attributes(), "service.name", "ferry-bot");
  auto* spans = rs->add_scope_spans();
  const std::string trace_id("\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19",
                             16);
  auto* retrieval = spans->add_spans();
  retrieval->set_trace_id(trace_id);
  retrieval->set_span_id(std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  retrieval->set_name("retrieve");
  Attribute(retrieval->mutable_attributes(), "gen_ai.operation.name", "retrieval");
  // Structured, as an SDK that records AnyValue lists would send it.
  auto* docs = retrieval->add_attributes();
  docs->set_key("gen_ai.retrieval.documents");
  auto* doc = docs->mutable_value()->mutable_array_value()->add_values();
  auto* fields = doc->mutable_kvlist_value()->mutable_values();
  Attribute(fields, "id", "timetable#2");
  Attribute(fields, "content", "The ferry sails every 20 minutes from Pier 3.");
  auto* chat = spans->add_spans();
  chat->set_trace_id(trace_id);
  chat->set_span_id(std::string("\x02\x02\x03\x04\x05\x06\x07\x08", 8));
  chat->set_name("chat");
  chat->set_end_time_unix_nano(1796371200000000000ull);
  Attribute(chat->mutable_attributes(), "gen_ai.operation.name", "chat");
  Attribute(chat->mutable_attributes(), "gen_ai.input.messages",
            R"([{"role":"user","parts":[{"type":"text","content":"When does the ferry sail?"}]}])");
  Attribute(chat->mutable_attributes(), "gen_ai.output.messages",
            R"([{"role":"assistant","parts":[{"type":"text","content":"Every 20 minutes."}]}])");
  return request.SerializeAsString();
}

TEST(OtlpProtobufTest, AnEncodedRequestBecomesTheRowItsJsonFormGives) {
  auto rows = OtlpProtobufToRows(Request());
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  EXPECT_EQ(rows->traces, 1);
  EXPECT_EQ(rows->skipped, 0);
  json row = json::parse(rows->jsonl);
  EXPECT_EQ(row["id"], "0a0b0c0d0e0f10111213141516171819");
  EXPECT_EQ(row["user_input"], "When does the ferry sail?");
  EXPECT_EQ(row["response"], "Every 20 minutes.");
  EXPECT_EQ(row["retrieved_contexts"], json({"The ferry sails every 20 minutes from Pier 3."}));
  EXPECT_EQ(row["retrieved_context_ids"], json({"timetable#2"}));
  EXPECT_EQ(row["timestamp"], 1796371200.0);
  EXPECT_EQ(row["tags"]["service"], "ferry-bot");
}

TEST(OtlpProtobufTest, TheJsSdkProtoExportersBodyBecomesAFullRow) {
  std::ifstream in(std::string(TALA_SOURCE_DIR) + "/tests/data/otlp/js_sdk_trace.pb",
                   std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  ASSERT_GT(bytes.str().size(), 500u);
  auto rows = OtlpProtobufToRows(bytes.str());
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  ASSERT_EQ(rows->traces, 1);
  json row = json::parse(rows->jsonl);
  EXPECT_EQ(row["id"].get<std::string>().size(), 32u);
  EXPECT_EQ(row["user_input"], "When does the ferry sail?");
  EXPECT_EQ(row["response"], "The ferry sails every 20 minutes from Pier 3.");
  EXPECT_EQ(row["retrieved_context_ids"], json({"timetable#2", "fares#1"}));
  EXPECT_EQ(row["tags"], json({{"service", "ferry-bot"}, {"version", "1.4"}}));
  EXPECT_GT(row["timestamp"].get<double>(), 1.7e9);
}

TEST(OtlpProtobufTest, BytesThatAreNotARequestAreADataErrorAndTheAnswerDecodes) {
  auto bad = OtlpProtobufToRows(std::string("\xff\xff\xff\xff not protobuf", 18));
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), ErrorCode::kDataError);
  tala::otlp::ExportTraceServiceResponse answer;
  ASSERT_TRUE(answer.ParseFromString(OtlpProtobufAnswer(2, "2 traces had no answer")));
  EXPECT_EQ(answer.partial_success().rejected_spans(), 2);
  EXPECT_EQ(answer.partial_success().error_message(), "2 traces had no answer");
  ASSERT_TRUE(answer.ParseFromString(OtlpProtobufAnswer(0, "")));
  EXPECT_FALSE(answer.has_partial_success());
}

}  // namespace
}  // namespace tala::serve
