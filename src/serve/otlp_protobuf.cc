// OTLP/HTTP protobuf bodies: decoded with libprotobuf (otlp_trace.proto) into the JSON form
// OTLP defines for the same messages (ids in hex, 64-bit integers as strings, values as
// {"stringValue": ...}), and read by the one mapping in otlp.cc.

#include <nlohmann/json.hpp>

#include "serve/otlp.h"
#include "serve/otlp_trace.pb.h"

namespace tala::serve {

namespace {

using json = nlohmann::json;

std::string Hex(const std::string& bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

json Value(const tala::otlp::AnyValue& v);

json KeyValues(const google::protobuf::RepeatedPtrField<tala::otlp::KeyValue>& list) {
  json out = json::array();
  for (const auto& kv : list) out.push_back({{"key", kv.key()}, {"value", Value(kv.value())}});
  return out;
}

json Value(const tala::otlp::AnyValue& v) {
  using V = tala::otlp::AnyValue;
  switch (v.value_case()) {
    case V::kStringValue:
      return {{"stringValue", v.string_value()}};
    case V::kBoolValue:
      return {{"boolValue", v.bool_value()}};
    case V::kIntValue:
      return {{"intValue", std::to_string(v.int_value())}};
    case V::kDoubleValue:
      return {{"doubleValue", v.double_value()}};
    case V::kArrayValue: {
      json values = json::array();
      for (const auto& item : v.array_value().values()) values.push_back(Value(item));
      return {{"arrayValue", {{"values", values}}}};
    }
    case V::kKvlistValue:
      return {{"kvlistValue", {{"values", KeyValues(v.kvlist_value().values())}}}};
    case V::kBytesValue:
      return {{"bytesValue", Hex(v.bytes_value())}};
    default:
      return json::object();
  }
}

}  // namespace

Result<json> OtlpProtobufToJson(std::string_view body) {
  tala::otlp::ExportTraceServiceRequest request;
  if (body.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !request.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    return DataError({"request", 0, 0, ""},
                     "not an OTLP ExportTraceServiceRequest (protobuf); send JSON as "
                     "application/json");
  }
  json resource_spans = json::array();
  for (const auto& rs : request.resource_spans()) {
    json scope_spans = json::array();
    for (const auto& ss : rs.scope_spans()) {
      json spans = json::array();
      for (const auto& span : ss.spans()) {
        json events = json::array();
        for (const auto& e : span.events()) {
          events.push_back({{"timeUnixNano", std::to_string(e.time_unix_nano())},
                            {"name", e.name()},
                            {"attributes", KeyValues(e.attributes())}});
        }
        spans.push_back({{"traceId", Hex(span.trace_id())},
                         {"spanId", Hex(span.span_id())},
                         {"parentSpanId", Hex(span.parent_span_id())},
                         {"name", span.name()},
                         {"startTimeUnixNano", std::to_string(span.start_time_unix_nano())},
                         {"endTimeUnixNano", std::to_string(span.end_time_unix_nano())},
                         {"attributes", KeyValues(span.attributes())},
                         {"events", events}});
      }
      scope_spans.push_back({{"spans", spans}});
    }
    resource_spans.push_back({{"resource", {{"attributes", KeyValues(rs.resource().attributes())}}},
                              {"scopeSpans", scope_spans}});
  }
  return json{{"resourceSpans", resource_spans}};
}

Result<OtlpRows> OtlpProtobufToRows(std::string_view body) {
  TALA_ASSIGN_OR_RETURN(json root, OtlpProtobufToJson(body));
  return OtlpJsonToRows(root);
}

std::string OtlpProtobufAnswer(int64_t skipped, const std::string& message) {
  tala::otlp::ExportTraceServiceResponse answer;
  if (skipped > 0) {
    answer.mutable_partial_success()->set_rejected_spans(skipped);
    answer.mutable_partial_success()->set_error_message(message);
  }
  return answer.SerializeAsString();
}

}  // namespace tala::serve
