#include "io/shard_state.h"

#include <simdjson.h>

#include <filesystem>

#include "io/readers/json_fields.h"
#include "io/readers/results_reader.h"
#include "io/writers/json_text.h"
#include "io/writers/run_records.h"

namespace tala::io {

namespace {

void Key(std::string& out, const char* key) {
  out += ',';
  AppendJsonString(out, key);
  out += ':';
}

void Int(std::string& out, const char* key, int64_t v) {
  Key(out, key);
  out += std::to_string(v);
}

void Str(std::string& out, const char* key, const std::string& v) {
  Key(out, key);
  AppendJsonString(out, v);
}

void Strings(std::string& out, const char* key, const std::vector<std::string>& list) {
  Key(out, key);
  out += '[';
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) out += ',';
    AppendJsonString(out, list[i]);
  }
  out += ']';
}

}  // namespace

ShardState ShardStateOf(const RunSummary& s, const ShardSpec& shard, const std::string& dataset,
                        uint64_t dataset_bytes) {
  ShardState st;
  st.shard = shard;
  st.dataset = dataset;
  st.dataset_bytes = dataset_bytes;
  st.judge = s.judge;
  st.rows_read = s.rows_read;
  st.rows_skipped = s.rows_skipped;
  st.rows_scored = s.rows_scored;
  st.rows_failed = s.rows_failed;
  st.errors = s.errors;
  for (const MetricSummary& m : s.metrics) {
    st.metrics.push_back({m.key, m.direction, m.scored, m.undefined, m.failed, m.sum});
  }
  st.notes = s.notes;
  st.warnings = s.warnings;
  if (s.accounting.used) st.accounting = s.accounting;
  return st;
}

std::string FormatShardState(const ShardState& st) {
  std::string out = "{\"tala_shard\":1";
  Int(out, "index", st.shard.index);
  Int(out, "count", st.shard.count);
  Str(out, "by", ShardByName(st.shard.by));
  Str(out, "dataset", st.dataset);
  Int(out, "dataset_bytes", static_cast<int64_t>(st.dataset_bytes));
  Str(out, "dataset_sha256", st.dataset_sha256);
  Str(out, "diagnosis", st.diagnosis);
  Str(out, "judge", st.judge);
  Int(out, "rows_read", st.rows_read);
  Int(out, "rows_skipped", st.rows_skipped);
  Int(out, "rows_scored", st.rows_scored);
  Int(out, "rows_failed", st.rows_failed);
  Key(out, "errors");
  out += '[';
  for (size_t i = 0; i < st.errors.size(); ++i) {
    const Status& e = st.errors[i];
    out += i ? ",{" : "{";
    out += "\"file\":";
    AppendJsonString(out, e.where().file);
    Int(out, "line", e.where().line);
    Int(out, "column", e.where().column);
    Str(out, "field", e.where().field);
    Str(out, "message", e.message());
    out += '}';
  }
  out += ']';
  Key(out, "metrics");
  out += '[';
  for (size_t i = 0; i < st.metrics.size(); ++i) {
    const MetricTotals& m = st.metrics[i];
    out += i ? ",{" : "{";
    out += "\"key\":";
    AppendJsonString(out, m.key);
    Str(out, "better", m.direction == Direction::kHigherIsBetter ? "higher" : "lower");
    Int(out, "scored", m.scored);
    Int(out, "undefined", m.undefined);
    Int(out, "failed", m.failed);
    Key(out, "sum");
    AppendJsonNumber(out, m.sum);
    out += '}';
  }
  out += ']';
  Strings(out, "notes", st.notes);
  Strings(out, "warnings", st.warnings);
  Key(out, "accounting");
  out += st.accounting ? FormatRunRecordLine(*st.accounting, "complete", "") : "null";
  Key(out, "positions");
  out += '[';
  int64_t previous = 0;
  for (size_t i = 0; i < st.positions.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(st.positions[i] - previous);
    previous = st.positions[i];
  }
  out += ']';
  if (!st.kept_sha256.empty()) {
    Key(out, "rows");
    out += "{\"begin\":" + std::to_string(st.rows_begin);
    Int(out, "bytes", static_cast<int64_t>(st.rows_bytes));
    Int(out, "file_bytes", static_cast<int64_t>(st.file_bytes));
    Int(out, "file_modified_ns", st.file_modified_ns);
    Str(out, "kept_sha256", st.kept_sha256);
    out += '}';
  }
  out += "}\n";
  return out;
}

namespace {

Result<int64_t> IntAt(simdjson::dom::element e, const char* key, const std::string& path) {
  int64_t v = 0;
  if (e[key].get_int64().get(v)) return DataError({path, 1, 0, key}, "missing or not an integer");
  return v;
}

Result<std::string> StrAt(simdjson::dom::element e, const char* key, const std::string& path) {
  std::string_view v;
  if (e[key].get_string().get(v)) return DataError({path, 1, 0, key}, "missing or not a string");
  return std::string(v);
}

}  // namespace

Result<ShardState> ReadShardState(const std::string& path) {
  if (!std::filesystem::exists(path)) return NotFound(path + " does not exist");
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto err = parser.load(path).get(root)) {
    return DataError({path, 1, 0, ""}, std::string("not JSON: ") + simdjson::error_message(err));
  }
  int64_t version = 0;
  if (root["tala_shard"].get_int64().get(version) || version != 1) {
    return DataError({path, 1, 0, "tala_shard"}, "not a tala shard state (version 1)");
  }
  ShardState st;
  TALA_ASSIGN_OR_RETURN(int64_t index, IntAt(root, "index", path));
  TALA_ASSIGN_OR_RETURN(int64_t count, IntAt(root, "count", path));
  TALA_ASSIGN_OR_RETURN(std::string by, StrAt(root, "by", path));
  auto spec = ParseShard(std::to_string(index) + "/" + std::to_string(count), by);
  if (!spec) return DataError({path, 1, 0, "index"}, spec.error().message());
  st.shard = *spec;
  TALA_ASSIGN_OR_RETURN(st.dataset, StrAt(root, "dataset", path));
  TALA_ASSIGN_OR_RETURN(int64_t bytes, IntAt(root, "dataset_bytes", path));
  st.dataset_bytes = static_cast<uint64_t>(bytes);
  std::string_view text;
  if (!root["dataset_sha256"].get_string().get(text)) st.dataset_sha256 = std::string(text);
  if (!root["diagnosis"].get_string().get(text)) st.diagnosis = std::string(text);
  TALA_ASSIGN_OR_RETURN(st.judge, StrAt(root, "judge", path));
  TALA_ASSIGN_OR_RETURN(st.rows_read, IntAt(root, "rows_read", path));
  TALA_ASSIGN_OR_RETURN(st.rows_skipped, IntAt(root, "rows_skipped", path));
  TALA_ASSIGN_OR_RETURN(st.rows_scored, IntAt(root, "rows_scored", path));
  TALA_ASSIGN_OR_RETURN(st.rows_failed, IntAt(root, "rows_failed", path));
  simdjson::dom::array list;
  if (!root["errors"].get_array().get(list)) {
    for (simdjson::dom::element e : list) {
      SourceLocation where;
      std::string_view text;
      if (!e["file"].get_string().get(text)) where.file = std::string(text);
      if (e["line"].get_int64().get(where.line)) where.line = 0;
      if (e["column"].get_int64().get(where.column)) where.column = 0;
      if (!e["field"].get_string().get(text)) where.field = std::string(text);
      std::string message;
      if (!e["message"].get_string().get(text)) message = std::string(text);
      st.errors.push_back(DataError(where, message));
    }
  }
  if (root["metrics"].get_array().get(list)) {
    return DataError({path, 1, 0, "metrics"}, "missing or not a list");
  }
  for (simdjson::dom::element e : list) {
    MetricTotals m;
    TALA_ASSIGN_OR_RETURN(m.key, StrAt(e, "key", path));
    auto better = StrAt(e, "better", path);
    m.direction =
        better && *better == "lower" ? Direction::kLowerIsBetter : Direction::kHigherIsBetter;
    TALA_ASSIGN_OR_RETURN(m.scored, IntAt(e, "scored", path));
    TALA_ASSIGN_OR_RETURN(m.undefined, IntAt(e, "undefined", path));
    TALA_ASSIGN_OR_RETURN(m.failed, IntAt(e, "failed", path));
    if (e["sum"].get_double().get(m.sum)) {
      return DataError({path, 1, 0, "metrics.sum"}, "missing or not a number");
    }
    st.metrics.push_back(std::move(m));
  }
  st.notes = StringsAt(root, "notes");
  st.warnings = StringsAt(root, "warnings");
  simdjson::dom::element record;
  if (!root["accounting"][kRunRecordKey].get(record)) st.accounting = ParseRunRecord(record);
  if (!root["positions"].get_array().get(list)) {
    int64_t at = 0;
    for (simdjson::dom::element e : list) {
      int64_t step = 0;
      if (e.get_int64().get(step)) {
        return DataError({path, 1, 0, "positions"}, "not a list of integers");
      }
      st.positions.push_back(at += step);
    }
  }
  simdjson::dom::element rows;
  if (!root["rows"].get(rows)) {
    int64_t begin = 0, bytes = 0, file_bytes = 0, modified = 0;
    std::string_view kept;
    if (rows["begin"].get_int64().get(begin) || rows["bytes"].get_int64().get(bytes) ||
        rows["file_bytes"].get_int64().get(file_bytes) ||
        rows["file_modified_ns"].get_int64().get(modified) ||
        rows["kept_sha256"].get_string().get(kept) || begin < 0 || bytes < 0 || file_bytes < 0 ||
        kept.size() != 64) {
      return DataError({path, 1, 0, "rows"},
                       "not {begin, bytes, file_bytes, file_modified_ns, kept_sha256}");
    }
    st.rows_begin = static_cast<uint64_t>(begin);
    st.rows_bytes = static_cast<uint64_t>(bytes);
    st.file_bytes = static_cast<uint64_t>(file_bytes);
    st.file_modified_ns = modified;
    st.kept_sha256 = std::string(kept);
  }
  return st;
}

}  // namespace tala::io
