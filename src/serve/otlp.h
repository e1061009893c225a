#pragma once
// OTLP/HTTP traces (POST /v1/traces, JSON or protobuf) into tala rows, one per trace, by
// OpenTelemetry's GenAI semantic conventions:
//   - the inference span (gen_ai.operation.name chat, text_completion or generate_content):
//     user_input is the text of the last "user" message of gen_ai.input.messages, response the
//     text of the first "assistant" message of gen_ai.output.messages (both as structured
//     values or JSON strings; messages are {"role", "parts": [{"type": "text", "content"}]});
//     from older instrumentations (semconv 1.36 and before), the events gen_ai.user.message
//     (content) and gen_ai.choice (message.content or content), or the attributes
//     gen_ai.prompt / gen_ai.completion;
//   - a retrieval span (gen_ai.operation.name retrieval): gen_ai.retrieval.documents, a list of
//     {"id", "content"}, gives retrieved_contexts (content) and retrieved_context_ids (id), in
//     order; gen_ai.retrieval.query.text stands in for a missing user_input.
// Other instrumentation styles map too:
//   - OpenLLMetry: gen_ai.prompt.N.{role,content} (the last user one) and
//     gen_ai.completion.N.{role,content} (the first assistant one) on the LLM span;
//   - OpenInference (Phoenix): openinference.span.kind LLM (llm.input_messages.N.message.*,
//     llm.output_messages.N.message.*, else input.value / output.value), RETRIEVER
//     (retrieval.documents.N.document.{content,id}, input.value as the query), and a root CHAIN
//     or AGENT span whose input.value and output.value are the application's own question and
//     answer, preferred to the LLM's prompt;
//   - content on the gen_ai.client.inference.operation.details event (gen_ai.input.messages,
//     gen_ai.output.messages).
// The row's id is the trace id; its timestamp the inference span's end; its tags the
// resource's service.name and service.version (as "service", "version"). A trace without an
// inference span holding both a question and an answer is skipped and counted. Pure.
//
// An SDK exports spans as they end, in batches, so one trace often comes in several requests:
// the service keeps each span (OtlpSpans) by trace id until the trace is whole, then maps the
// trace's spans together (OtlpJsonToRows over them).

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tala/status.h"

namespace tala::serve {

// One span of a traces request, as the trace buffer keeps it until its trace is whole.
struct OtlpSpan {
  std::string trace_id;
  bool root_ended = false;  // a root span (no parent) with an end time: the trace may be whole
  // A resourceSpans element holding this span alone, with the resource's service.name and
  // service.version: the spans of a trace, put together as {"resourceSpans": [...]}, are a
  // request OtlpJsonToRows reads.
  std::string piece;
};

struct OtlpRows {
  std::string jsonl;  // the rows, for Service::Ingest
  int64_t traces = 0, skipped = 0;
};

// kDataError (file "request", field the JSON path) when the body is not OTLP JSON.
Result<OtlpRows> OtlpToRows(std::string_view body);
// The same from a parsed body.
Result<OtlpRows> OtlpJsonToRows(const nlohmann::json& root);

// The same from an OTLP/HTTP protobuf body (an ExportTraceServiceRequest,
// otlp_trace.proto): decoded with libprotobuf into OTLP's JSON form, then read as above, so
// both encodings map one way. kDataError when the bytes are not such a message.
Result<OtlpRows> OtlpProtobufToRows(std::string_view body);
// The spans of an OTLP/HTTP body, JSON or (`protobuf`) an ExportTraceServiceRequest, in order;
// the errors of OtlpToRows (a span without a traceId among them).
Result<std::vector<OtlpSpan>> OtlpSpans(std::string_view body, bool protobuf);
// An ExportTraceServiceRequest's bytes in OTLP's JSON form; kDataError when they are not one.
Result<nlohmann::json> OtlpProtobufToJson(std::string_view body);

// The protobuf answer an OTLP exporter expects (ExportTraceServiceResponse), with a partial
// success when traces were skipped.
std::string OtlpProtobufAnswer(int64_t skipped, const std::string& message);

}  // namespace tala::serve
