#include "targets/reply_mapping.h"

#include <nlohmann/json.hpp>

#include "targets/json_path.h"

namespace tala::targets {

namespace {
using nlohmann::json;

Status Bad(std::string what) { return {ErrorCode::kBadReply, std::move(what)}; }

std::string TypeOf(const json& v) { return v.is_null() ? "null" : v.type_name(); }

// The value at `path`, or at the first default path present; nullptr with `tried` set.
const json* Pick(const json& reply, const std::string& path,
                 std::initializer_list<const char*> defaults, std::string* tried) {
  if (!path.empty()) {
    *tried = path;
    return FindPath(reply, path);
  }
  for (const char* d : defaults) {
    if (const json* v = FindPath(reply, d)) {
      *tried = d;
      return v;
    }
  }
  tried->clear();
  for (const char* d : defaults) *tried += (tried->empty() ? "" : " or ") + std::string(d);
  return nullptr;
}

std::optional<std::string> Text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return v.dump();
  return std::nullopt;
}

Status ReadContexts(const json& reply, const TargetSpec& spec, bool required, TargetAnswer& a) {
  std::string path;
  const json* contexts = Pick(reply, spec.contexts, {"contexts", "retrieved_contexts"}, &path);
  if (contexts == nullptr && !required) return OkStatus();
  if (contexts == nullptr) return Bad("the reply has no contexts at " + path);
  a.contexts_given = true;
  if (!contexts->is_array()) {
    return Bad("contexts at " + path + ": expected an array, got " + TypeOf(*contexts));
  }
  std::vector<std::string> ids;
  for (size_t i = 0; i < contexts->size(); ++i) {
    const json& c = (*contexts)[i];
    std::string where = path + "[" + std::to_string(i) + "]";
    if (c.is_string()) {
      a.contexts.push_back(c.get<std::string>());
      continue;
    }
    if (!c.is_object()) {
      return Bad(where + ": expected a string or an object, got " + TypeOf(c));
    }
    const json* text = FindPath(c, spec.context_text);
    if (text == nullptr) text = FindPath(c, "content");
    if (text == nullptr) text = FindPath(c, "page_content");
    if (text == nullptr || !text->is_string()) {
      return Bad(where + ": no string field \"" + spec.context_text + "\"");
    }
    a.contexts.push_back(text->get<std::string>());
    if (const json* id = FindPath(c, spec.context_id)) {
      if (auto t = Text(*id)) ids.push_back(*t);
    }
  }
  if (spec.context_ids.empty() && ids.size() == a.contexts.size() && !ids.empty()) {
    a.context_ids = std::move(ids);
  }
  std::string ids_path;
  const json* listed =
      Pick(reply, spec.context_ids, {"context_ids", "retrieved_context_ids"}, &ids_path);
  if (listed == nullptr) {
    if (!spec.context_ids.empty()) return Bad("the reply has no context ids at " + ids_path);
    return OkStatus();
  }
  if (!listed->is_array()) {
    return Bad("context ids at " + ids_path + ": expected an array, got " + TypeOf(*listed));
  }
  a.context_ids.emplace();
  for (const json& id : *listed) {
    auto t = Text(id);
    if (!t) return Bad("context ids at " + ids_path + ": expected strings or numbers");
    a.context_ids->push_back(*t);
  }
  return OkStatus();
}

template <typename T>
Status ReadFigure(const json& reply, const std::string& path, const char* fallback,
                  std::optional<T>& out) {
  const json* v = FindPath(reply, path.empty() ? fallback : path);
  if (v == nullptr) return OkStatus();  // figures are optional: a reply need not report them
  if (!v->is_number()) {
    return Bad("figure at " + (path.empty() ? std::string(fallback) : path) +
               ": expected a number, got " + TypeOf(*v));
  }
  out = v->get<T>();
  return OkStatus();
}
}  // namespace

Result<TargetAnswer> ReadReply(std::string_view body, const TargetSpec& spec,
                               bool contexts_required) {
  json reply = json::parse(body, nullptr, false);
  if (reply.is_discarded()) {
    std::string head(body.substr(0, 80));
    return Bad("the reply is not JSON: " + head + (body.size() > 80 ? "..." : ""));
  }
  if (!reply.is_object()) return Bad("the reply is a JSON " + TypeOf(reply) + ", not an object");
  TargetAnswer a;
  std::string path;
  const json* response = Pick(reply, spec.response, {"answer", "response"}, &path);
  if (response == nullptr) {
    if (auto it = reply.find("error"); it != reply.end() && it->is_string()) {
      return Bad("the target said: " + it->get<std::string>());
    }
    return Bad("the reply has no response at " + path);
  }
  if (!response->is_string()) {
    return Bad("response at " + path + ": expected a string, got " + TypeOf(*response));
  }
  a.response = response->get<std::string>();
  TALA_RETURN_IF_ERROR(ReadContexts(reply, spec, contexts_required, a));
  TALA_RETURN_IF_ERROR(
      ReadFigure(reply, spec.prompt_tokens, "usage.prompt_tokens", a.prompt_tokens));
  TALA_RETURN_IF_ERROR(
      ReadFigure(reply, spec.completion_tokens, "usage.completion_tokens", a.completion_tokens));
  TALA_RETURN_IF_ERROR(ReadFigure(reply, spec.cost, "cost_usd", a.cost_usd));
  return a;
}

}  // namespace tala::targets
