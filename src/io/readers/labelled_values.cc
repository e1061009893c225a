#include "io/readers/labelled_values.h"

#include <simdjson.h>

#include "io/readers/json_lines.h"
#include "io/readers/row_parser.h"
#include "io/writers/run_records.h"

namespace tala::io {

namespace {

// The element at a dotted path, or an error naming the first missing part.
simdjson::simdjson_result<simdjson::dom::element> AtPath(simdjson::dom::element root,
                                                         const std::string& path) {
  simdjson::dom::element cur = root;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string key =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    simdjson::dom::object obj;
    if (cur.get_object().get(obj)) return simdjson::INCORRECT_TYPE;
    if (obj.at_key(key).get(cur)) return simdjson::NO_SUCH_FIELD;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return cur;
}

std::string AsText(simdjson::dom::element v) {
  std::string_view s;
  if (!v.get_string().get(s)) return std::string(s);
  return simdjson::minify(v);
}

bool IsPositive(simdjson::dom::element v, const std::string& positive) {
  std::string text = AsText(v);
  if (!positive.empty()) return text == positive;
  return text == "true" || text == "1" || text == "yes" || text == "1.0";
}

}  // namespace

Result<LabelledValues> ReadLabelledValues(const std::string& path,
                                          const LabelledValuesOptions& options) {
  LabelledValues out;
  TALA_RETURN_IF_ERROR(
      ForEachJsonLine(path, [&](simdjson::dom::element root, int64_t line_no) -> Status {
        simdjson::dom::element human;
        if (!root[kManifestKey].get(human) || !root[kRunRecordKey].get(human)) {
          return OkStatus();  // a results file's manifest or run record, not a row
        }
        if (AtPath(root, options.human_path).get(human) || human.is_null()) {
          ++out.skipped_missing_human;
          return OkStatus();
        }
        LabelledRow row;
        row.human_positive = IsPositive(human, options.positive);
        simdjson::dom::element judge;
        if (AtPath(root, options.judge_path).get(judge)) {
          return DataError({path, line_no, 0, options.judge_path}, "missing");
        }
        if (!judge.is_null()) {
          double d;
          bool b;
          if (!judge.get_double().get(d)) {
            row.judge = d;
          } else if (!judge.get_bool().get(b)) {
            row.judge = b ? 1.0 : 0.0;
          } else {
            return DataError(
                {path, line_no, 0, options.judge_path},
                std::string("expected a number or a boolean, got ") + JsonTypeName(judge.type()));
          }
        }
        if (!options.group_path.empty()) {
          simdjson::dom::element group;
          if (AtPath(root, options.group_path).get(group)) {
            return DataError({path, line_no, 0, options.group_path}, "missing");
          }
          row.group = AsText(group);
        }
        out.rows.push_back(std::move(row));
        return OkStatus();
      }));
  return out;
}

}  // namespace tala::io
