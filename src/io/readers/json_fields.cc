#include "io/readers/json_fields.h"

#include "io/readers/list_text.h"
#include "io/readers/row_parser.h"

namespace tala::io {

using simdjson::dom::element;
using simdjson::dom::element_type;

Status Expected(const FieldContext& ctx, const std::string& field, const char* expected,
                element got) {
  return DataError({ctx.file, ctx.line, 0, field},
                   std::string("expected ") + expected + ", got " + JsonTypeName(got.type()));
}

Result<std::string> ReadString(const FieldContext& ctx, const std::string& field, element v) {
  std::string_view s;
  if (v.get_string().get(s)) return Expected(ctx, field, "a string", v);
  return std::string(s);
}

Result<std::vector<std::string>> ReadStringArray(const FieldContext& ctx, const std::string& field,
                                                 element v) {
  std::string_view text;
  if (!v.get_string().get(text)) {
    // A list written as text (a DataFrame read back from pandas' CSV export): the list it says.
    auto list = ListWrittenAsText(text);
    if (!list) {
      return DataError({ctx.file, ctx.line, 0, field},
                       "expected an array of strings, got a string that is not a list written as "
                       "text (a JSON array or a Python list of strings)");
    }
    simdjson::dom::parser parser;
    return ReadStringArray(ctx, field, parser.parse(*list).value());
  }
  simdjson::dom::array arr;
  if (v.get_array().get(arr)) return Expected(ctx, field, "an array of strings", v);
  std::vector<std::string> out;
  out.reserve(arr.size());
  size_t idx = 0;
  for (element item : arr) {
    std::string_view s;
    if (item.get_string().get(s)) {
      return Expected(ctx, field + "[" + std::to_string(idx) + "]", "a string", item);
    }
    out.emplace_back(s);
    ++idx;
  }
  return out;
}

Result<std::vector<std::string>> ReadIdArray(const FieldContext& ctx, const std::string& field,
                                             element v) {
  simdjson::dom::array arr;
  if (v.get_array().get(arr)) return Expected(ctx, field, "an array of ids", v);
  std::vector<std::string> out;
  size_t idx = 0;
  for (element item : arr) {
    std::string_view s;
    int64_t n;
    if (!item.get_string().get(s)) {
      out.emplace_back(s);
    } else if (!item.get_int64().get(n)) {
      out.push_back(std::to_string(n));
    } else {
      return Expected(ctx, field + "[" + std::to_string(idx) + "]", "a string or integer id", item);
    }
    ++idx;
  }
  return out;
}

Result<bool> ReadFlag(const FieldContext& ctx, const std::string& field, element v) {
  bool b;
  if (!v.get_bool().get(b)) return b;
  int64_t n;
  if (!v.get_int64().get(n) && (n == 0 || n == 1)) return n == 1;
  return Expected(ctx, field, "true/false (or 0/1)", v);
}

Result<std::vector<bool>> ReadFlagArray(const FieldContext& ctx, const std::string& field,
                                        element v) {
  simdjson::dom::array arr;
  if (v.get_array().get(arr)) return Expected(ctx, field, "an array of true/false", v);
  std::vector<bool> out;
  size_t idx = 0;
  for (element item : arr) {
    TALA_ASSIGN_OR_RETURN(bool b, ReadFlag(ctx, field + "[" + std::to_string(idx) + "]", item));
    out.push_back(b);
    ++idx;
  }
  return out;
}

Result<double> ReadNumber(const FieldContext& ctx, const std::string& field, element v) {
  double d;
  if (v.get_double().get(d)) return Expected(ctx, field, "a number", v);
  return d;
}

Result<std::vector<double>> ReadNumberArray(const FieldContext& ctx, const std::string& field,
                                            element v) {
  simdjson::dom::array arr;
  if (v.get_array().get(arr)) return Expected(ctx, field, "an array of numbers", v);
  std::vector<double> out;
  out.reserve(arr.size());
  size_t idx = 0;
  for (element item : arr) {
    double d;
    if (item.get_double().get(d)) {
      return Expected(ctx, field + "[" + std::to_string(idx) + "]", "a number", item);
    }
    out.push_back(d);
    ++idx;
  }
  return out;
}

Result<simdjson::dom::object> ReadObject(const FieldContext& ctx, const std::string& field,
                                         element v) {
  simdjson::dom::object obj;
  if (v.get_object().get(obj)) return Expected(ctx, field, "an object", v);
  return obj;
}

std::vector<std::string> StringsAt(element object, const char* key) {
  std::vector<std::string> out;
  simdjson::dom::array list;
  if (object[key].get_array().get(list)) return out;
  for (element v : list) {
    std::string_view text;
    if (!v.get_string().get(text)) out.emplace_back(text);
  }
  return out;
}

}  // namespace tala::io
