#pragma once
// The top-level fields a dataset row may have, as the row parser reads them: Ragas' names and
// their older spellings ("question" for user_input). For the faces that check a table's columns
// before it is written as rows (Python's DataFrames). Immutable: thread-safe.

#include <string>
#include <utility>
#include <vector>

namespace tala::io {

// (name, the field it fills), in the parser's order; a field's own name maps to itself.
std::vector<std::pair<std::string, std::string>> DatasetFieldNames();

}  // namespace tala::io
