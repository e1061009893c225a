#pragma once
// The texts a results line was scored on: its "inputs" object (the row as tala read it), for the
// decisions that show a row's texts to someone again (pairwise judging, tala align's examples).

#include <nlohmann/json.hpp>
#include <string>

namespace tala {

// The line's "inputs" object, or null when the line has none or is not JSON.
nlohmann::json InputsOfResultLine(const std::string& line);
// A text field of `inputs` ("response"); "" when it is absent or not a text.
std::string InputText(const nlohmann::json& inputs, const char* field);

}  // namespace tala
