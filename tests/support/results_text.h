#pragma once
// Test helper: a results file's text without the dates in its manifest and run record, so two
// runs that wrote the same rows compare equal.

#include <regex>
#include <string>

namespace tala::testing {

inline std::string Undated(const std::string& text) {
  return std::regex_replace(text, std::regex("\"(created|finished)\":\"[^\"]*\""), "");
}

}  // namespace tala::testing
