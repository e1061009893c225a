#pragma once
// Test helper: a JSON Lines file's lines as JSON values (every line must parse).

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tala::testing {

inline std::vector<nlohmann::json> ReadJsonLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

}  // namespace tala::testing
