#pragma once
// Turns one parsed JSON object (a dataset row) into a Sample: Ragas field names, legacy aliases,
// metadata pass-through, replay verdicts. Every error names the file, line and field.
// Stateless apart from the scratch it is handed; one per reader.

#include <simdjson.h>

#include <string>

#include "tala/sample.h"
#include "tala/status.h"

namespace tala::io {

struct RowContext {
  const std::string& file;
  int64_t line;  // 1-based line where the row starts
  int64_t row;   // 1-based row number: the default id
};

Result<Sample> ParseRow(simdjson::dom::element row, const RowContext& ctx);

// "a string", "an array", ... for error messages.
const char* JsonTypeName(simdjson::dom::element_type type);

// Turns a simdjson parse error into a data error for that line.
Status JsonSyntaxError(simdjson::error_code code, const std::string& file, int64_t line);

}  // namespace tala::io
