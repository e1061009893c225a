#include "io/readers/labels_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdio>

#include "io/readers/json_fields.h"
#include "io/readers/json_lines.h"

namespace tala::io {

namespace {
using simdjson::dom::element;

Status ReadSelection(const FieldContext& ctx, element v, LabelSelection& s) {
  TALA_ASSIGN_OR_RETURN(simdjson::dom::object o, ReadObject(ctx, "tala_labels", v));
  for (auto [key, value] : o) {
    std::string field = "tala_labels." + std::string(key);
    if (key == "pick") {
      TALA_ASSIGN_OR_RETURN(s.pick, ReadString(ctx, field, value));
    } else if (key == "metric") {
      TALA_ASSIGN_OR_RETURN(s.metric, ReadString(ctx, field, value));
    } else if (key == "results") {
      TALA_ASSIGN_OR_RETURN(s.results, ReadString(ctx, field, value));
    } else if (key == "seed" || key == "n") {
      TALA_ASSIGN_OR_RETURN(double d, ReadNumber(ctx, field, value));
      (key == "seed" ? s.seed : s.n) = static_cast<int64_t>(d);
    }
  }
  if (s.pick.empty()) return DataError({ctx.file, ctx.line, 0, "tala_labels.pick"}, "missing");
  return OkStatus();
}

Status ReadRow(const FieldContext& ctx, simdjson::dom::object o, LabelRow& row) {
  bool has_id = false;
  for (auto [key, value] : o) {
    std::string field(key);
    if (key == "id") {
      if (!value.is_string() && !value.is_int64() && !value.is_uint64()) {
        return Expected(ctx, "id", "a string or an integer", value);
      }
      has_id = true;
    } else if (key == "claims") {
      simdjson::dom::array a;
      if (value.get_array().get(a)) return Expected(ctx, field, "an array", value);
      for (element c : a) {
        if (c.is_null()) {
          row.claims.emplace_back();
          continue;
        }
        TALA_ASSIGN_OR_RETURN(bool b, ReadFlag(ctx, field, c));
        row.claims.emplace_back(b);
      }
    } else if (key == "pick_probability") {
      TALA_ASSIGN_OR_RETURN(double p, ReadNumber(ctx, field, value));
      if (!(p > 0 && p <= 1)) {
        return DataError(
            {ctx.file, ctx.line, 0, field},
            "expected the row's chance of being picked, in (0, 1], got " + std::to_string(p));
      }
      row.pick_probability = p;
    } else if (key == "note" || key == "labeller" || key == "time") {
      std::string& out = key == "note" ? row.note : key == "labeller" ? row.labeller : row.time;
      TALA_ASSIGN_OR_RETURN(out, ReadString(ctx, field, value));
    } else if (value.is_bool()) {
      row.values[field] = value.get_bool().value() ? 1.0 : 0.0;
    } else if (value.is_number()) {
      TALA_ASSIGN_OR_RETURN(row.values[field], ReadNumber(ctx, field, value));
    } else if (!value.is_null()) {
      return Expected(ctx, field, "a number or true/false (a label)", value);
    }
  }
  if (!has_id) return DataError({ctx.file, ctx.line, 0, "id"}, "missing: the labelled row's id");
  return OkStatus();
}
}  // namespace

Result<Labels> ReadLabels(const std::string& path) {
  Labels labels;
  std::map<std::string, size_t> index;
  std::vector<int64_t> lines;  // each kept row's line
  Status s = ForEachJsonLine(path, [&](element v, int64_t line) -> Status {
    FieldContext ctx{path, line};
    simdjson::dom::object o;
    if (v.get_object().get(o)) return Expected(ctx, "", "a JSON object", v);
    element header;
    if (!o.at_key("tala_labels").get(header)) {
      labels.selection.emplace();
      return ReadSelection(ctx, header, *labels.selection);
    }
    LabelRow row;
    element id;
    if (!o.at_key("id").get(id)) {
      std::string_view text;
      row.id = id.get_string().get(text) ? simdjson::minify(id) : std::string(text);
    }
    TALA_RETURN_IF_ERROR(ReadRow(ctx, o, row));
    row.reviews.push_back({row.labeller, row.values});
    auto [it, fresh] = index.emplace(row.id, labels.rows.size());
    if (!fresh) {
      // Another reviewer's label of the row: kept beside the others, the values their mean.
      LabelRow& first = labels.rows[it->second];
      const bool named =
          !row.labeller.empty() &&
          std::all_of(first.reviews.begin(), first.reviews.end(), [&](const LabelReview& r) {
            return !r.labeller.empty() && r.labeller != row.labeller;
          });
      if (!named) {
        return DataError({path, line, 0, "id"},
                         "\"" + row.id + "\" is labelled again (first on line " +
                             std::to_string(lines[it->second]) +
                             "); keep one label per row and reviewer (several reviewers: give "
                             "each line its \"labeller\")");
      }
      first.reviews.push_back(std::move(row.reviews.front()));
      std::map<std::string, std::pair<double, int>> sums;
      for (const LabelReview& r : first.reviews) {
        for (const auto& [metric, v] : r.values) {
          sums[metric].first += v;
          ++sums[metric].second;
        }
      }
      for (const auto& [metric, sum] : sums) first.values[metric] = sum.first / sum.second;
      if (first.claims.empty()) first.claims = std::move(row.claims);
      return OkStatus();
    }
    labels.rows.push_back(std::move(row));
    lines.push_back(line);
    return OkStatus();
  });
  TALA_RETURN_IF_ERROR(s);
  return labels;
}

Status CheckLabelRange(const Labels& labels, const std::string& metric, const ResultsFile& results,
                       const std::string& path) {
  double lo = 0, hi = 1;
  for (double v : ColumnOf(results, metric).values) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  for (const LabelRow& row : labels.rows) {
    for (const LabelReview& review : row.reviews) {
      auto it = review.values.find(metric);
      if (it == review.values.end()) continue;
      if (!(it->second >= lo && it->second <= hi)) {
        char range[64];
        std::snprintf(range, sizeof range, "[%g, %g]", lo, hi);
        return DataError({path, 0, 0, metric},
                         "the label of row \"" + row.id + "\" is " + std::to_string(it->second) +
                             ", outside the values " + metric + " takes " + range);
      }
    }
  }
  return OkStatus();
}

}  // namespace tala::io
