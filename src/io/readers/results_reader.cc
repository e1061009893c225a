#include "io/readers/results_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <map>

#include "io/readers/json_fields.h"
#include "io/readers/json_lines.h"
#include "io/readers/row_parser.h"

namespace tala::io {

PairedScores PairById(const ResultsFile& base, const ResultsFile& candidate,
                      const std::string& key) {
  std::map<std::string_view, const ResultRow*> by_id;
  for (const ResultRow& row : base.rows) by_id[row.id] = &row;
  PairedScores out;
  for (const ResultRow& row : candidate.rows) {
    auto it = by_id.find(row.id);
    if (it == by_id.end()) continue;
    auto bs = it->second->scores.find(key);
    auto cs = row.scores.find(key);
    if (bs == it->second->scores.end() || cs == row.scores.end() || !bs->second || !cs->second) {
      continue;
    }
    out.base.push_back(*bs->second);
    out.candidate.push_back(*cs->second);
    out.ids.push_back(row.id);
  }
  return out;
}

Result<ResultsFile> ReadResults(const std::string& path) {
  ResultsFile out;
  TALA_RETURN_IF_ERROR(
      ForEachJsonLine(path, [&](simdjson::dom::element root, int64_t line_no) -> Status {
        FieldContext ctx{path, line_no};
        simdjson::dom::element id, scores;
        if (root["id"].get(id))
          return DataError({path, line_no, 0, "id"}, "missing: is this a tala results file?");
        if (root["scores"].get(scores))
          return DataError({path, line_no, 0, "scores"}, "missing: is this a tala results file?");
        ResultRow row;
        std::string_view sid;
        int64_t nid;
        if (!id.get_string().get(sid))
          row.id = std::string(sid);
        else if (!id.get_int64().get(nid))
          row.id = std::to_string(nid);
        else
          return Expected(ctx, "id", "a string or an integer", id);
        simdjson::dom::element diagnosis;
        std::string_view diagnosis_text;
        if (!root["diagnosis"].get(diagnosis) && !diagnosis.get_string().get(diagnosis_text)) {
          row.diagnosis = std::string(diagnosis_text);
        }
        TALA_ASSIGN_OR_RETURN(simdjson::dom::object obj, ReadObject(ctx, "scores", scores));
        for (auto [key, value] : obj) {
          std::string k(key);
          if (value.is_null()) {
            row.scores[k] = std::nullopt;
          } else {
            TALA_ASSIGN_OR_RETURN(double d, ReadNumber(ctx, "scores." + k, value));
            row.scores[k] = d;
          }
          if (std::find(out.metric_keys.begin(), out.metric_keys.end(), k) ==
              out.metric_keys.end()) {
            out.metric_keys.push_back(k);
          }
        }
        out.rows.push_back(std::move(row));
        return OkStatus();
      }));
  if (out.rows.empty()) return DataError({path, 0, 0, ""}, "the results file holds no rows");
  return out;
}

}  // namespace tala::io
