#include "serve/otlp.h"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

namespace tala::serve {

namespace {

using json = nlohmann::json;

Status Bad(const std::string& field, const std::string& why) {
  return DataError({"request", 0, 0, field}, why);
}

// OTLP nests values (kvlists in arrays in kvlists); real traces stay far below this. A deeper
// body is refused while it is parsed, before anything recurses over it.
constexpr int kMaxDepth = 64;
struct TooDeep {};

const json& Empty() {
  static const json empty;
  return empty;
}
// A member by reference (never a copy of a subtree), or null when absent or not an object.
const json& Member(const json& holder, const char* key) {
  if (!holder.is_object()) return Empty();
  auto it = holder.find(key);
  return it == holder.end() ? Empty() : *it;
}
// The elements of an array member; an absent member is an empty list, another type an error.
Result<const json*> ListAt(const json& holder, const char* key, const std::string& where) {
  const json& v = Member(holder, key);
  if (v.is_null()) return &Empty();
  if (!v.is_array()) return Bad(where + "." + key, "expected an array");
  return &v;
}

// An OTLP AnyValue as plain JSON ({"stringValue": "x"} → "x", arrays and kvlists unwrapped).
json Plain(const json& v) {
  if (!v.is_object()) return v;
  if (v.contains("stringValue")) return v["stringValue"];
  if (v.contains("boolValue")) return v["boolValue"];
  if (v.contains("doubleValue")) return v["doubleValue"];
  if (v.contains("intValue")) {
    const json& i = v["intValue"];  // int64 travels as a string in OTLP JSON
    if (!i.is_string()) return i;
    const std::string& text = i.get_ref<const std::string&>();
    char* end = nullptr;
    long long n = std::strtoll(text.c_str(), &end, 10);
    return end != text.c_str() && *end == '\0' ? json(n) : json(text);
  }
  auto list = [](const json& holder) -> const json& {
    const json& values = Member(holder, "values");
    return values.is_array() ? values : Empty();
  };
  if (v.contains("arrayValue")) {
    json out = json::array();
    for (const json& item : list(v["arrayValue"])) out.push_back(Plain(item));
    return out;
  }
  if (v.contains("kvlistValue")) {
    json out = json::object();
    for (const json& kv : list(v["kvlistValue"])) {
      const json& key = Member(kv, "key");
      if (key.is_string()) out[key.get<std::string>()] = Plain(Member(kv, "value"));
    }
    return out;
  }
  return nullptr;
}

std::map<std::string, json> Attributes(const json& holder) {
  std::map<std::string, json> out;
  const json& attributes = Member(holder, "attributes");
  if (!attributes.is_array()) return out;
  for (const json& kv : attributes) {
    const json& key = Member(kv, "key");
    if (key.is_string()) out[key.get<std::string>()] = Plain(Member(kv, "value"));
  }
  return out;
}

// A value recorded as structured JSON or as a JSON string.
json Structured(const json& v) {
  if (!v.is_string()) return v;
  json parsed = json::parse(v.get<std::string>(), nullptr, false);
  return parsed.is_discarded() ? v : parsed;
}

std::string Text(const json& message) {
  if (message.is_string()) return message.get<std::string>();
  if (!message.is_object()) return "";
  if (message.contains("content") && message["content"].is_string()) {
    return message["content"].get<std::string>();
  }
  std::string out;
  const json& parts = Member(message, "parts");
  if (!parts.is_array()) return out;
  for (const json& part : parts) {
    const json& type = Member(part, "type");
    const json& content = Member(part, "content");
    if (type.is_string() && type.get<std::string>() == "text" && content.is_string()) {
      out += (out.empty() ? "" : "\n") + content.get<std::string>();
    }
  }
  return out;
}

std::string MessageOf(const json& messages, const std::string& role, bool last) {
  json list = Structured(messages);
  if (list.is_string()) return list.get<std::string>();
  if (!list.is_array()) return "";
  std::string found;
  for (const json& m : list) {
    const json& r = Member(m, "role");
    if (r.is_string() && r.get<std::string>() == role) {
      found = Text(m);
      if (!last && !found.empty()) return found;
    }
  }
  return found;
}

struct Trace {
  std::string user_input, response, query;
  // OpenInference's root CHAIN span: the application's own question and answer, preferred to
  // the LLM span's messages, whose last user turn is often the prompt template around them.
  std::string chain_input, chain_output;
  std::vector<std::string> contexts, context_ids;
  double ts = 0;
  json tags = json::object();
  // The conversation the trace is a turn of: OpenInference's session.id or the GenAI
  // conventions' gen_ai.conversation.id, on any of its spans.
  std::string session;
};

std::string StringAt(std::map<std::string, json>& attrs, const std::string& key) {
  auto it = attrs.find(key);
  return it != attrs.end() && it->second.is_string() ? it->second.get<std::string>() : "";
}

// Flattened indexed attributes, PREFIX.N.FIELD (OpenLLMetry's gen_ai.prompt.0.content,
// OpenInference's retrieval.documents.0.document.id): N -> FIELD -> value, in N order.
std::map<int, std::map<std::string, json>> Indexed(const std::map<std::string, json>& attrs,
                                                   const std::string& prefix) {
  std::map<int, std::map<std::string, json>> out;
  for (auto it = attrs.lower_bound(prefix); it != attrs.end(); ++it) {
    const std::string& key = it->first;
    if (key.compare(0, prefix.size(), prefix) != 0) break;
    size_t dot = key.find('.', prefix.size());
    if (dot == std::string::npos || dot == prefix.size()) continue;
    const std::string number = key.substr(prefix.size(), dot - prefix.size());
    if (number.find_first_not_of("0123456789") != std::string::npos || number.size() > 6) continue;
    out[std::stoi(number)][key.substr(dot + 1)] = it->second;
  }
  return out;
}

// The content of the last (or first) indexed message with `role`, from OpenLLMetry
// (ROLE_KEY "role", CONTENT_KEY "content") or OpenInference ("message.role", "message.content").
std::string IndexedMessage(const std::map<int, std::map<std::string, json>>& messages,
                           const std::string& role, const char* role_key, const char* content_key,
                           bool last) {
  std::string found;
  for (const auto& [n, fields] : messages) {
    auto r = fields.find(role_key);
    auto c = fields.find(content_key);
    if (c == fields.end() || !c->second.is_string()) continue;
    if (r != fields.end() && r->second.is_string() && r->second.get<std::string>() != role)
      continue;
    found = c->second.get<std::string>();
    if (!last && !found.empty()) return found;
  }
  return found;
}

// OpenInference's input.value / output.value as text. With mime type application/json (what its
// LangChain instrumentation records for a chain called with a dict: {"question": "..."}) the text
// is found inside: a JSON string, the first of `keys` that holds a string, or an object's one
// string member; else none, and the LLM span's messages are read instead (serve finding 3).
std::string ValueText(std::map<std::string, json>& attrs, const std::string& prefix,
                      std::initializer_list<const char*> keys) {
  std::string value = StringAt(attrs, prefix + ".value");
  if (StringAt(attrs, prefix + ".mime_type").rfind("application/json", 0) != 0) return value;
  json parsed = json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_string()) return parsed.get<std::string>();
  if (!parsed.is_object()) return "";
  for (const char* key : keys) {
    auto it = parsed.find(key);
    if (it != parsed.end() && it->is_string()) return it->get<std::string>();
  }
  std::string only;
  int strings = 0;
  for (const auto& [key, member] : parsed.items()) {
    if (member.is_string()) {
      ++strings;
      only = member.get<std::string>();
    }
  }
  return strings == 1 && parsed.size() == 1 ? only : "";
}

std::string InputText(std::map<std::string, json>& attrs) {
  return ValueText(attrs, "input", {"question", "input", "query", "user_input", "prompt"});
}

std::string OutputText(std::map<std::string, json>& attrs) {
  return ValueText(attrs, "output", {"answer", "output", "result", "response", "text"});
}

void ReadEnd(const json& span, Trace& t) {
  const json& end = Member(span, "endTimeUnixNano");
  if (end.is_string()) t.ts = std::strtod(end.get_ref<const std::string&>().c_str(), nullptr) / 1e9;
  if (end.is_number()) t.ts = end.get<double>() / 1e9;
  if (!std::isfinite(t.ts) || t.ts < 0) t.ts = 0;
}

// OpenInference (Arize Phoenix, its LlamaIndex and LangChain instrumentations): true when the
// span is one of its kinds.
bool ReadOpenInference(const json& span, std::map<std::string, json>& attrs, Trace& t) {
  const std::string kind = StringAt(attrs, "openinference.span.kind");
  if (kind.empty()) return false;
  if (kind == "RETRIEVER") {
    if (t.query.empty()) t.query = InputText(attrs);
    for (const auto& [n, doc] : Indexed(attrs, "retrieval.documents.")) {
      auto content = doc.find("document.content");
      if (content == doc.end() || !content->second.is_string()) continue;
      t.contexts.push_back(content->second.get<std::string>());
      auto id = doc.find("document.id");
      t.context_ids.push_back(id != doc.end() && id->second.is_string()
                                  ? id->second.get<std::string>()
                              : id != doc.end() && id->second.is_number() ? id->second.dump()
                                                                          : "");
    }
    return true;
  }
  const json& parent = Member(span, "parentSpanId");
  const bool root = !parent.is_string() || parent.get<std::string>().empty();
  if (kind == "CHAIN" || kind == "AGENT") {
    if (root) {
      t.chain_input = InputText(attrs);
      t.chain_output = OutputText(attrs);
      if (t.ts == 0) ReadEnd(span, t);
    }
    return true;
  }
  if (kind == "LLM") {
    auto in = Indexed(attrs, "llm.input_messages.");
    auto out = Indexed(attrs, "llm.output_messages.");
    std::string question = IndexedMessage(in, "user", "message.role", "message.content", true);
    std::string answer = IndexedMessage(out, "assistant", "message.role", "message.content", false);
    if (question.empty()) question = InputText(attrs);
    if (answer.empty()) answer = OutputText(attrs);
    if (!question.empty()) t.user_input = question;
    if (!answer.empty()) t.response = answer;
    ReadEnd(span, t);
  }
  return true;
}

// A vector database's query span as OpenLLMetry's instrumentations (Chroma, Pinecone, ...) record
// it: db.system, and one db.query.result event per document found, its text in
// db.query.result.document (serve finding 4: these rows had no contexts). True when it was one.
bool ReadVectorQuery(const json& span, std::map<std::string, json>& attrs, Trace& t) {
  if (!attrs.count("db.system")) return false;
  const json& events = Member(span, "events");
  bool found = false;
  for (const json& e : events.is_array() ? events : Empty()) {
    const json& name = Member(e, "name");
    if (!name.is_string() || name.get<std::string>() != "db.query.result") continue;
    auto ea = Attributes(e);
    std::string document = StringAt(ea, "db.query.result.document");
    if (document.empty()) continue;
    found = true;
    t.contexts.push_back(document);
    const json& id = ea.count("db.query.result.id") ? ea["db.query.result.id"] : Empty();
    t.context_ids.push_back(id.is_string()   ? id.get<std::string>()
                            : id.is_number() ? id.dump()
                                             : "");
  }
  return found;
}

void ReadSpan(const json& span, Trace& t) {
  auto attrs = Attributes(span);
  for (const char* key : {"gen_ai.conversation.id", "session.id"}) {
    auto it = attrs.find(key);
    if (t.session.empty() && it != attrs.end()) {
      if (it->second.is_string()) t.session = it->second.get<std::string>();
      if (it->second.is_number_integer()) t.session = it->second.dump();
    }
  }
  if (ReadOpenInference(span, attrs, t)) return;
  if (ReadVectorQuery(span, attrs, t)) return;
  // OpenLLMetry (Traceloop): gen_ai.prompt.N.{role,content} and gen_ai.completion.N.{...} on
  // the LLM span, with llm.request.type instead of gen_ai.operation.name.
  auto prompts = Indexed(attrs, "gen_ai.prompt.");
  auto completions = Indexed(attrs, "gen_ai.completion.");
  if (!prompts.empty() || !completions.empty()) {
    std::string question = IndexedMessage(prompts, "user", "role", "content", true);
    std::string answer = IndexedMessage(completions, "assistant", "role", "content", false);
    if (!question.empty()) t.user_input = question;
    if (!answer.empty()) t.response = answer;
    ReadEnd(span, t);
    return;
  }
  std::string op =
      attrs.count("gen_ai.operation.name") && attrs["gen_ai.operation.name"].is_string()
          ? attrs["gen_ai.operation.name"].get<std::string>()
          : "";
  if (op == "retrieval") {
    if (attrs.count("gen_ai.retrieval.query.text") &&
        attrs["gen_ai.retrieval.query.text"].is_string()) {
      t.query = attrs["gen_ai.retrieval.query.text"].get<std::string>();
    }
    json docs = attrs.count("gen_ai.retrieval.documents")
                    ? Structured(attrs["gen_ai.retrieval.documents"])
                    : json();
    if (docs.is_array()) {
      for (const json& d : docs) {
        std::string content = Text(d);
        if (content.empty()) continue;
        t.contexts.push_back(content);
        const json& id = Member(d, "id");
        t.context_ids.push_back(id.is_string() ? id.get<std::string>() : "");
      }
    }
    return;
  }
  if (op != "chat" && op != "text_completion" && op != "generate_content") return;
  if (attrs.count("gen_ai.input.messages")) {
    t.user_input = MessageOf(attrs["gen_ai.input.messages"], "user", /*last=*/true);
  }
  if (attrs.count("gen_ai.output.messages")) {
    t.response = MessageOf(attrs["gen_ai.output.messages"], "assistant", /*last=*/false);
  }
  const json& events = Member(span, "events");
  for (const json& e : events.is_array() ? events : Empty()) {
    auto ea = Attributes(e);
    const json& n = Member(e, "name");
    std::string name = n.is_string() ? n.get<std::string>() : "";
    if (name == "gen_ai.client.inference.operation.details") {
      // Content recorded on the event instead of the span (the conventions' opt-in event).
      if (t.user_input.empty() && ea.count("gen_ai.input.messages")) {
        t.user_input = MessageOf(ea["gen_ai.input.messages"], "user", /*last=*/true);
      }
      if (t.response.empty() && ea.count("gen_ai.output.messages")) {
        t.response = MessageOf(ea["gen_ai.output.messages"], "assistant", /*last=*/false);
      }
    } else if (name == "gen_ai.user.message" && t.user_input.empty() && ea.count("content")) {
      t.user_input = Text(ea["content"]);
    } else if (name == "gen_ai.choice" && t.response.empty()) {
      if (ea.count("message")) t.response = Text(Structured(ea["message"]));
      if (t.response.empty() && ea.count("content")) t.response = Text(ea["content"]);
    }
  }
  if (t.user_input.empty() && attrs.count("gen_ai.prompt"))
    t.user_input = Text(attrs["gen_ai.prompt"]);
  if (t.response.empty() && attrs.count("gen_ai.completion"))
    t.response = Text(attrs["gen_ai.completion"]);
  ReadEnd(span, t);
}

// Every span of a traces request with where it is and its resource, in order; stops at the
// first malformed part (kDataError naming its JSON path).
using SpanVisitor = std::function<Status(const json& span, const std::string& trace_id,
                                         const std::string& at, const json& resource)>;
Status ForEachSpan(const json& root, const SpanVisitor& visit) {
  const json& resource_spans = Member(root, "resourceSpans");
  if (!resource_spans.is_array())
    return Bad("resourceSpans", "missing: not an OTLP traces request");
  for (size_t r = 0; r < resource_spans.size(); ++r) {
    const json& rs = resource_spans[r];
    std::string where = "resourceSpans[" + std::to_string(r) + "]";
    if (!rs.is_object()) return Bad(where, "expected an object");
    const json& resource = Member(rs, "resource");
    TALA_ASSIGN_OR_RETURN(const json* scope_spans, ListAt(rs, "scopeSpans", where));
    for (size_t s = 0; s < scope_spans->size(); ++s) {
      const json& ss = (*scope_spans)[s];
      std::string at = where + ".scopeSpans[" + std::to_string(s) + "]";
      if (!ss.is_object()) return Bad(at, "expected an object");
      TALA_ASSIGN_OR_RETURN(const json* spans, ListAt(ss, "spans", at));
      for (size_t k = 0; k < spans->size(); ++k) {
        const json& span = (*spans)[k];
        std::string span_at = at + ".spans[" + std::to_string(k) + "]";
        if (!span.is_object()) return Bad(span_at, "expected an object");
        const json& trace_id = Member(span, "traceId");
        if (!trace_id.is_string() || trace_id.get_ref<const std::string&>().empty())
          return Bad(span_at + ".traceId", "missing or not a string");
        TALA_RETURN_IF_ERROR(visit(span, trace_id.get<std::string>(), span_at, resource));
      }
    }
  }
  return OkStatus();
}

Result<json> ParseJsonBody(std::string_view body) {
  try {
    return json::parse(body, [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxDepth) throw TooDeep{};
      return true;
    });
  } catch (const TooDeep&) {
    return Bad("", "nested deeper than " + std::to_string(kMaxDepth) + " levels");
  } catch (const json::exception&) {
    return Bad("", "not JSON (OTLP/HTTP JSON expected; send protobuf as application/x-protobuf)");
  }
}

// The resource attributes a row keeps (its tags), as OTLP key-values.
json RowResource(const json& resource) {
  json kept = json::array();
  const json& attributes = Member(resource, "attributes");
  for (const json& kv : attributes.is_array() ? attributes : Empty()) {
    const json& key = Member(kv, "key");
    if (key.is_string() && (key.get_ref<const std::string&>() == "service.name" ||
                            key.get_ref<const std::string&>() == "service.version")) {
      kept.push_back(kv);
    }
  }
  return {{"attributes", kept}};
}

bool IsEndedRoot(const json& span) {
  const json& parent = Member(span, "parentSpanId");
  if (parent.is_string() && !parent.get_ref<const std::string&>().empty()) return false;
  const json& end = Member(span, "endTimeUnixNano");
  if (end.is_number()) return end.get<double>() > 0;
  return end.is_string() && std::strtod(end.get_ref<const std::string&>().c_str(), nullptr) > 0;
}

}  // namespace

Result<OtlpRows> OtlpToRows(std::string_view body) {
  TALA_ASSIGN_OR_RETURN(json root, ParseJsonBody(body));
  return OtlpJsonToRows(root);
}

Result<std::vector<OtlpSpan>> OtlpSpans(std::string_view body, bool protobuf) {
  json root;
  if (protobuf) {
    TALA_ASSIGN_OR_RETURN(root, OtlpProtobufToJson(body));
  } else {
    TALA_ASSIGN_OR_RETURN(root, ParseJsonBody(body));
  }
  std::vector<OtlpSpan> out;
  TALA_RETURN_IF_ERROR(ForEachSpan(root, [&](const json& span, const std::string& trace_id,
                                             const std::string&, const json& resource) {
    json piece = {{"resource", RowResource(resource)},
                  {"scopeSpans", json::array({{{"spans", json::array({span})}}})}};
    out.push_back({trace_id, IsEndedRoot(span), piece.dump()});
    return OkStatus();
  }));
  return out;
}

Result<OtlpRows> OtlpJsonToRows(const nlohmann::json& root) {
  std::map<std::string, Trace> traces;
  std::vector<std::string> order;
  TALA_RETURN_IF_ERROR(ForEachSpan(root, [&](const json& span, const std::string& id,
                                             const std::string& span_at,
                                             const json& resource_json) {
    auto [it, added] = traces.try_emplace(id);
    if (added) order.push_back(id);
    auto resource = Attributes(resource_json);
    for (const char* key : {"service.name", "service.version"}) {
      if (resource.count(key) && resource[key].is_string()) {
        it->second.tags[std::string(key) == "service.name" ? "service" : "version"] = resource[key];
      }
    }
    try {
      ReadSpan(span, it->second);
    } catch (const json::exception&) {
      return Bad(span_at, "a value of an unexpected type");
    }
    return OkStatus();
  }));
  OtlpRows out;
  for (const std::string& id : order) {
    Trace& t = traces[id];
    ++out.traces;
    if (!t.chain_input.empty()) t.user_input = t.chain_input;
    if (!t.chain_output.empty()) t.response = t.chain_output;
    if (t.user_input.empty()) t.user_input = t.query;
    if (t.user_input.empty() || t.response.empty()) {
      ++out.skipped;
      continue;
    }
    json row = {{"id", id}, {"user_input", t.user_input}, {"response", t.response}};
    if (!t.contexts.empty()) {
      row["retrieved_contexts"] = t.contexts;
      bool ids = true;
      for (const std::string& c : t.context_ids) ids = ids && !c.empty();
      if (ids) row["retrieved_context_ids"] = t.context_ids;
    }
    if (t.ts > 0) row["timestamp"] = t.ts;
    if (!t.tags.empty()) row["tags"] = t.tags;
    // A turn of a conversation: the service joins the session's turns into one row.
    if (!t.session.empty()) row["conversation_id"] = t.session;
    out.jsonl += row.dump() + "\n";
  }
  return out;
}

}  // namespace tala::serve
