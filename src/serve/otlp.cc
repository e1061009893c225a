#include "serve/otlp.h"

#include <map>
#include <nlohmann/json.hpp>
#include <vector>

namespace tala::serve {

namespace {

using json = nlohmann::json;

Status Bad(const std::string& field, const std::string& why) {
  return DataError({"request", 0, 0, field}, why);
}

// An OTLP AnyValue as plain JSON ({"stringValue": "x"} → "x", arrays and kvlists unwrapped).
json Plain(const json& v) {
  if (!v.is_object()) return v;
  if (v.contains("stringValue")) return v["stringValue"];
  if (v.contains("boolValue")) return v["boolValue"];
  if (v.contains("doubleValue")) return v["doubleValue"];
  if (v.contains("intValue")) {
    const json& i = v["intValue"];  // int64 travels as a string in OTLP JSON
    return i.is_string() ? json(std::stoll(i.get<std::string>())) : i;
  }
  if (v.contains("arrayValue")) {
    json out = json::array();
    for (const json& item : v["arrayValue"].value("values", json::array())) {
      out.push_back(Plain(item));
    }
    return out;
  }
  if (v.contains("kvlistValue")) {
    json out = json::object();
    for (const json& kv : v["kvlistValue"].value("values", json::array())) {
      out[kv.value("key", "")] = Plain(kv.value("value", json()));
    }
    return out;
  }
  return nullptr;
}

std::map<std::string, json> Attributes(const json& holder) {
  std::map<std::string, json> out;
  if (!holder.is_object() || !holder.contains("attributes")) return out;
  for (const json& kv : holder["attributes"]) {
    if (kv.is_object()) out[kv.value("key", "")] = Plain(kv.value("value", json()));
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
  for (const json& part : message.value("parts", json::array())) {
    if (part.value("type", "") == "text" && part.contains("content") &&
        part["content"].is_string()) {
      out += (out.empty() ? "" : "\n") + part["content"].get<std::string>();
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
    if (m.is_object() && m.value("role", "") == role) {
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
        t.context_ids.push_back(d.is_object() && d.contains("id") && d["id"].is_string()
                                    ? d["id"].get<std::string>()
                                    : "");
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
  for (const json& e : span.value("events", json::array())) {
    auto ea = Attributes(e);
    std::string name = e.value("name", "");
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
  const json& end = span.value("endTimeUnixNano", json());
  if (end.is_string()) t.ts = std::stod(end.get<std::string>()) / 1e9;
  if (end.is_number()) t.ts = end.get<double>() / 1e9;
}

}  // namespace

Result<OtlpRows> OtlpToRows(std::string_view body) {
  json root = json::parse(body, nullptr, false);
  if (root.is_discarded()) return Bad("", "not JSON (OTLP/HTTP JSON expected)");
  if (!root.is_object() || !root.contains("resourceSpans") || !root["resourceSpans"].is_array()) {
    return Bad("resourceSpans", "missing: not an OTLP traces request");
  }
  std::map<std::string, Trace> traces;
  std::vector<std::string> order;
  for (size_t r = 0; r < root["resourceSpans"].size(); ++r) {
    const json& rs = root["resourceSpans"][r];
    auto resource = Attributes(rs.value("resource", json::object()));
    for (const json& ss : rs.value("scopeSpans", json::array())) {
      for (const json& span : ss.value("spans", json::array())) {
        if (!span.is_object() || !span.contains("traceId") || !span["traceId"].is_string()) {
          return Bad("resourceSpans[" + std::to_string(r) + "].scopeSpans[].spans[].traceId",
                     "missing or not a string");
        }
        std::string id = span["traceId"].get<std::string>();
        auto [it, added] = traces.try_emplace(id);
        if (added) order.push_back(id);
        for (const char* key : {"service.name", "service.version"}) {
          if (resource.count(key) && resource[key].is_string()) {
            it->second.tags[std::string(key) == "service.name" ? "service" : "version"] =
                resource[key];
          }
        }
        ReadSpan(span, it->second);
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
