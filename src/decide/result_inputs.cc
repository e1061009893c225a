#include "decide/result_inputs.h"

namespace tala {

nlohmann::json InputsOfResultLine(const std::string& line) {
  nlohmann::json parsed = nlohmann::json::parse(line, nullptr, false);
  if (!parsed.is_object() || !parsed.contains("inputs")) return nullptr;
  return parsed["inputs"];
}

std::string InputText(const nlohmann::json& inputs, const char* field) {
  if (!inputs.is_object()) return "";
  auto it = inputs.find(field);
  return it != inputs.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace tala
