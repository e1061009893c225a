#pragma once
// Typed reads of JSON values with errors that say what was expected and what was found.
// Shared by the row parser and the replay-verdicts parser.

#include <simdjson.h>

#include <map>
#include <string>
#include <vector>

#include "tala/status.h"

namespace tala::io {

struct FieldContext {
  const std::string& file;
  int64_t line;
};

Status Expected(const FieldContext& ctx, const std::string& field, const char* expected,
                simdjson::dom::element got);
Result<std::string> ReadString(const FieldContext& ctx, const std::string& field,
                               simdjson::dom::element v);
Result<std::vector<std::string>> ReadStringArray(const FieldContext& ctx, const std::string& field,
                                                 simdjson::dom::element v);
// Ids may be strings or integers; integers are stringified.
Result<std::vector<std::string>> ReadIdArray(const FieldContext& ctx, const std::string& field,
                                             simdjson::dom::element v);
// true/false, or 0/1 as many labelling tools write them.
Result<bool> ReadFlag(const FieldContext& ctx, const std::string& field, simdjson::dom::element v);
Result<std::vector<bool>> ReadFlagArray(const FieldContext& ctx, const std::string& field,
                                        simdjson::dom::element v);
Result<double> ReadNumber(const FieldContext& ctx, const std::string& field,
                          simdjson::dom::element v);
Result<std::vector<double>> ReadNumberArray(const FieldContext& ctx, const std::string& field,
                                            simdjson::dom::element v);
// The strings in object[key] when it is an array (anything else skipped): for tala's own records
// (results files, shard states), read leniently.
std::vector<std::string> StringsAt(simdjson::dom::element object, const char* key);

Result<simdjson::dom::object> ReadObject(const FieldContext& ctx, const std::string& field,
                                         simdjson::dom::element v);

}  // namespace tala::io
