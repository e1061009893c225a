#include "targets/request_template.h"

#include <cstdlib>

namespace tala::targets {

namespace {
using nlohmann::json;
using nlohmann::ordered_json;

bool IsContextsPlaceholder(const std::string& name) {
  return name == "contexts" || name == "contexts_json";
}

// The golden value a placeholder names; nullptr when there is none. `scratch` holds a value made
// for the call ({{contexts}}, {{contexts_json}}) when the row has no field of that name.
const ordered_json* Lookup(const ordered_json& row, std::string name, ordered_json& scratch) {
  if (name.rfind("metadata.", 0) == 0) name = name.substr(9);
  auto it = row.find(name);
  if (it != row.end()) return &*it;
  if (!IsContextsPlaceholder(name)) return nullptr;
  auto given = row.find(kGivenContexts);
  if (name == "contexts") {
    scratch = given == row.end() ? ordered_json() : *given;
  } else {
    scratch = given == row.end() ? ordered_json("") : ordered_json(given->dump());
  }
  return &scratch;
}

Status Unknown(const std::string& name, const ordered_json& row) {
  return InvalidArgument("the request template names {{" + name + "}}, which golden row " +
                         row.value("id", ordered_json("?")).dump() + " does not have");
}

Result<json> Fill(const json& node, const ordered_json& row) {
  if (node.is_object()) {
    json out = json::object();
    for (const auto& [key, value] : node.items()) {
      TALA_ASSIGN_OR_RETURN(out[key], Fill(value, row));
    }
    return out;
  }
  if (node.is_array()) {
    json out = json::array();
    for (const json& value : node) {
      TALA_ASSIGN_OR_RETURN(json filled, Fill(value, row));
      out.push_back(std::move(filled));
    }
    return out;
  }
  if (!node.is_string()) return node;
  const std::string& text = node.get_ref<const std::string&>();
  std::string out;
  size_t at = 0;
  while (true) {
    size_t open = text.find("{{", at);
    size_t close = open == std::string::npos ? open : text.find("}}", open + 2);
    if (close == std::string::npos) break;
    std::string name = text.substr(open + 2, close - open - 2);
    while (!name.empty() && name.front() == ' ') name.erase(0, 1);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    ordered_json scratch;
    const ordered_json* value = Lookup(row, name, scratch);
    if (value == nullptr) return Unknown(name, row);
    if (open == 0 && close + 2 == text.size()) return json::parse(value->dump());
    out += text.substr(at, open - at);
    out += value->is_string() ? value->get<std::string>() : value->dump();
    at = close + 2;
  }
  out += text.substr(at);
  return json(out);
}
}  // namespace

Result<std::string> RenderRequest(const json& request_template, const ordered_json& golden_row) {
  TALA_ASSIGN_OR_RETURN(json body, Fill(request_template, golden_row));
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool TemplateTakesContexts(const json& node) {
  if (node.is_object() || node.is_array()) {
    for (const json& value : node) {
      if (TemplateTakesContexts(value)) return true;
    }
    return false;
  }
  if (!node.is_string()) return false;
  const std::string& text = node.get_ref<const std::string&>();
  for (size_t open = text.find("{{"); open != std::string::npos; open = text.find("{{", open + 2)) {
    size_t close = text.find("}}", open + 2);
    if (close == std::string::npos) break;
    std::string name = text.substr(open + 2, close - open - 2);
    while (!name.empty() && name.front() == ' ') name.erase(0, 1);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (IsContextsPlaceholder(name)) return true;
  }
  return false;
}

std::string ExpandEnvironment(const std::string& text, std::string* missing) {
  std::string out;
  size_t at = 0;
  while (true) {
    size_t open = text.find("${", at);
    size_t close = open == std::string::npos ? open : text.find('}', open + 2);
    if (close == std::string::npos) break;
    std::string name = text.substr(open + 2, close - open - 2);
    const char* value = std::getenv(name.c_str());
    if (value == nullptr && missing != nullptr && missing->empty()) *missing = name;
    out += text.substr(at, open - at) + (value ? value : "");
    at = close + 1;
  }
  return out + text.substr(at);
}

}  // namespace tala::targets
