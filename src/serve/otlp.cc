#include "serve/otlp.h"

#include <cmath>
#include <cstdlib>
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
  std::vector<std::string> contexts, context_ids;
  double ts = 0;
  json tags = json::object();
};

void ReadSpan(const json& span, Trace& t) {
  auto attrs = Attributes(span);
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
    if (name == "gen_ai.user.message" && t.user_input.empty() && ea.count("content")) {
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
  const json& end = Member(span, "endTimeUnixNano");
  if (end.is_string()) t.ts = std::strtod(end.get_ref<const std::string&>().c_str(), nullptr) / 1e9;
  if (end.is_number()) t.ts = end.get<double>() / 1e9;
  if (!std::isfinite(t.ts) || t.ts < 0) t.ts = 0;
}

}  // namespace

Result<OtlpRows> OtlpToRows(std::string_view body) {
  json root;
  try {
    root = json::parse(body, [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxDepth) throw TooDeep{};
      return true;
    });
  } catch (const TooDeep&) {
    return Bad("", "nested deeper than " + std::to_string(kMaxDepth) + " levels");
  } catch (const json::exception&) {
    return Bad("", "not JSON (OTLP/HTTP JSON expected; send protobuf as application/x-protobuf)");
  }
  return OtlpJsonToRows(root);
}

Result<OtlpRows> OtlpJsonToRows(const nlohmann::json& root) {
  const json& resource_spans = Member(root, "resourceSpans");
  if (!resource_spans.is_array())
    return Bad("resourceSpans", "missing: not an OTLP traces request");
  std::map<std::string, Trace> traces;
  std::vector<std::string> order;
  for (size_t r = 0; r < resource_spans.size(); ++r) {
    const json& rs = resource_spans[r];
    std::string where = "resourceSpans[" + std::to_string(r) + "]";
    if (!rs.is_object()) return Bad(where, "expected an object");
    auto resource = Attributes(Member(rs, "resource"));
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
        if (!trace_id.is_string()) return Bad(span_at + ".traceId", "missing or not a string");
        std::string id = trace_id.get<std::string>();
        auto [it, added] = traces.try_emplace(id);
        if (added) order.push_back(id);
        for (const char* key : {"service.name", "service.version"}) {
          if (resource.count(key) && resource[key].is_string()) {
            it->second.tags[std::string(key) == "service.name" ? "service" : "version"] =
                resource[key];
          }
        }
        try {
          ReadSpan(span, it->second);
        } catch (const json::exception&) {
          return Bad(span_at, "a value of an unexpected type");
        }
      }
    }
  }
  OtlpRows out;
  for (const std::string& id : order) {
    Trace& t = traces[id];
    ++out.traces;
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
    out.jsonl += row.dump() + "\n";
  }
  return out;
}

}  // namespace tala::serve
