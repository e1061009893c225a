#include "history/history_json.h"

#include <simdjson.h>

#include <cmath>

#include "io/writers/json_text.h"

namespace tala::history {

namespace {

using simdjson::dom::element;

void Field(std::string& out, const char* key, std::string_view value) {
  io::AppendJsonString(out, key);
  out += ':';
  io::AppendJsonString(out, value);
  out += ',';
}

void Number(std::string& out, const char* key, double value) {
  io::AppendJsonString(out, key);
  out += ':';
  if (std::isfinite(value)) {
    io::AppendJsonNumber(out, value);
  } else {
    out += "null";
  }
  out += ',';
}

void Tags(std::string& out, const HistoryTags& tags) {
  out += "\"tags\":[";
  for (size_t i = 0; i < tags.size(); ++i) {
    out += i ? ",[" : "[";
    io::AppendJsonString(out, tags[i].first);
    out += ',';
    io::AppendJsonString(out, tags[i].second);
    out += ']';
  }
  out += "],";
}

void Close(std::string& out) {
  if (!out.empty() && out.back() == ',') out.pop_back();
}

// Readers that leave the field at its default when absent and fail on a wrong type.
struct Reader {
  const std::string& what;
  Status status = OkStatus();
  void Fail(const char* key, const char* wanted) {
    if (status.ok()) {
      status = BadData(what + ": field \"" + key + "\" must be " + wanted);
    }
  }
  void Str(element e, const char* key, std::string& out) {
    element v;
    if (e[key].get(v)) return;
    std::string_view s;
    if (v.get_string().get(s)) return Fail(key, "a string");
    out = std::string(s);
  }
  void Num(element e, const char* key, double& out) {
    element v;
    if (e[key].get(v) || v.is_null()) return;
    if (v.get_double().get(out)) Fail(key, "a number");
  }
  void Int(element e, const char* key, int64_t& out) {
    element v;
    if (e[key].get(v)) return;
    double d = 0;
    if (v.get_double().get(d)) return Fail(key, "a number");
    out = static_cast<int64_t>(d);
  }
  void Bool(element e, const char* key, bool& out) {
    element v;
    if (e[key].get(v)) return;
    if (v.get_bool().get(out)) Fail(key, "true or false");
  }
  void TagList(element e, HistoryTags& out) {
    element v;
    if (e["tags"].get(v)) return;
    simdjson::dom::array list;
    if (v.get_array().get(list)) return Fail("tags", "a list of [key, value] pairs");
    for (element pair : list) {
      simdjson::dom::array kv;
      std::string_view k, value;
      if (pair.get_array().get(kv) || kv.size() != 2 || kv.at(0).get_string().get(k) ||
          kv.at(1).get_string().get(value)) {
        return Fail("tags", "a list of [key, value] pairs");
      }
      out.emplace_back(std::string(k), std::string(value));
    }
  }
};

HistoryRun ReadRun(element e, Reader& r) {
  HistoryRun run;
  r.Int(e, "id", run.id);
  r.Str(e, "label", run.label);
  r.TagList(e, run.tags);
  r.Str(e, "time", run.time);
  r.Str(e, "added", run.added);
  r.Str(e, "dataset", run.dataset);
  r.Str(e, "dataset_sha256", run.dataset_sha256);
  r.Str(e, "golden_digest", run.golden_digest);
  r.Str(e, "judge", run.judge);
  r.Str(e, "results", run.results);
  r.Str(e, "report", run.report);
  r.Str(e, "results_sha256", run.results_sha256);
  r.Int(e, "rows", run.rows);
  simdjson::dom::array metrics;
  if (!e["metrics"].get_array().get(metrics)) {
    for (element m : metrics) {
      HistoryMetric hm;
      std::string direction;
      r.Str(m, "key", hm.key);
      r.Str(m, "direction", direction);
      hm.direction = direction == "lower" ? Direction::kLowerIsBetter : Direction::kHigherIsBetter;
      r.Str(m, "version", hm.version);
      r.Int(m, "scored", hm.scored);
      r.Num(m, "mean", hm.mean);
      r.Num(m, "ci_low", hm.ci_low);
      r.Num(m, "ci_high", hm.ci_high);
      if (hm.key.empty()) r.Fail("metrics", "objects with a \"key\"");
      run.metrics.push_back(hm);
    }
  }
  return run;
}

void AppendTrendPoint(std::string& out, const TrendPoint& p) {
  out += "{\"run\":";
  AppendRunJson(out, p.run);
  out += ',';
  Number(out, "scored", static_cast<double>(p.scored));
  Number(out, "mean", p.mean);
  Number(out, "ci_low", p.ci_low);
  Number(out, "ci_high", p.ci_high);
  Number(out, "segment", p.segment);
  Field(out, "new_segment", p.new_segment);
  out += std::string("\"compared\":") + (p.compared ? "true" : "false") + ",";
  if (p.compared) {
    Number(out, "base_id", static_cast<double>(p.base_id));
    Number(out, "pairs", static_cast<double>(p.pairs));
    Number(out, "change", p.change);
    Number(out, "change_low", p.change_low);
    Number(out, "change_high", p.change_high);
  }
  out += std::string("\"drop\":") + (p.drop ? "true" : "false") + "}";
}

}  // namespace

void AppendRunJson(std::string& out, const HistoryRun& run) {
  out += "{\"id\":" + std::to_string(run.id) + ",";
  Field(out, "label", run.label);
  Tags(out, run.tags);
  Field(out, "time", run.time);
  Field(out, "added", run.added);
  Field(out, "dataset", run.dataset);
  Field(out, "dataset_sha256", run.dataset_sha256);
  Field(out, "golden_digest", run.golden_digest);
  Field(out, "judge", run.judge);
  Field(out, "results", run.results);
  Field(out, "report", run.report);
  Field(out, "results_sha256", run.results_sha256);
  out += "\"rows\":" + std::to_string(run.rows) + ",\"metrics\":[";
  for (size_t i = 0; i < run.metrics.size(); ++i) {
    const HistoryMetric& m = run.metrics[i];
    out += i ? ",{" : "{";
    Field(out, "key", m.key);
    Field(out, "direction", m.direction == Direction::kLowerIsBetter ? "lower" : "higher");
    Field(out, "version", m.version);
    Number(out, "scored", static_cast<double>(m.scored));
    Number(out, "mean", m.mean);
    Number(out, "ci_low", m.ci_low);
    Number(out, "ci_high", m.ci_high);
    Close(out);
    out += '}';
  }
  out += "]}";
}

Result<HistoryRun> ParseRunJson(std::string_view json, const std::string& what) {
  simdjson::dom::parser parser;
  element root;
  if (parser.parse(json.data(), json.size()).get(root) || !root.is_object()) {
    return BadData(what + ": not a JSON object");
  }
  Reader r{what};
  HistoryRun run = ReadRun(root, r);
  if (!r.status.ok()) return r.status;
  return run;
}

std::string CaptureJson(const RunCapture& c) {
  std::string out = "{\"run\":";
  AppendRunJson(out, c.run);
  out += ",\"ids\":[";
  for (size_t i = 0; i < c.ids.size(); ++i) {
    if (i) out += ',';
    io::AppendJsonString(out, c.ids[i]);
  }
  out += "],\"values\":{";
  for (size_t m = 0; m < c.values.size(); ++m) {
    if (m) out += ',';
    io::AppendJsonString(out, c.values[m].first);
    out += ":[";
    const std::vector<double>& v = c.values[m].second;
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      if (std::isfinite(v[i])) {
        io::AppendJsonNumber(out, v[i]);
      } else {
        out += "null";
      }
    }
    out += ']';
  }
  return out + "}}";
}

Result<RunCapture> ParseCaptureJson(std::string_view json, const std::string& what) {
  simdjson::dom::parser parser;
  element root, run;
  simdjson::dom::array ids;
  simdjson::dom::object values;
  if (parser.parse(json.data(), json.size()).get(root)) return BadData(what + ": not JSON");
  if (root["run"].get(run) || !run.is_object()) return BadData(what + ": no \"run\" object");
  if (root["ids"].get_array().get(ids)) return BadData(what + ": no \"ids\" list");
  if (root["values"].get_object().get(values)) return BadData(what + ": no \"values\" object");
  Reader r{what};
  RunCapture c;
  c.run = ReadRun(run, r);
  if (!r.status.ok()) return r.status;
  for (element id : ids) {
    std::string_view s;
    if (id.get_string().get(s)) return BadData(what + ": \"ids\" must hold strings");
    c.ids.emplace_back(s);
  }
  for (auto field : values) {
    simdjson::dom::array list;
    if (field.value.get_array().get(list)) {
      return BadData(what + ": \"values\"." + std::string(field.key) + " must be a list");
    }
    std::vector<double> column;
    column.reserve(c.ids.size());
    for (element v : list) {
      double d = std::nan("");
      if (!v.is_null() && v.get_double().get(d)) {
        return BadData(what + ": \"values\"." + std::string(field.key) +
                       " must hold numbers or null");
      }
      column.push_back(d);
    }
    if (column.size() != c.ids.size()) {
      return BadData(what + ": \"values\"." + std::string(field.key) + " has " +
                     std::to_string(column.size()) + " values for " + std::to_string(c.ids.size()) +
                     " ids");
    }
    c.values.emplace_back(std::string(field.key), std::move(column));
  }
  // What the store keys and orders runs by must be there.
  if (c.run.results_sha256.size() != 64 ||
      c.run.results_sha256.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return BadData(what +
                   ": \"run\".results_sha256 must be the results file's SHA-256 (64 hex "
                   "digits)");
  }
  if (c.run.time.empty()) return BadData(what + ": \"run\".time must be given");
  if (c.run.metrics.empty()) return BadData(what + ": \"run\".metrics must not be empty");
  c.run.rows = static_cast<int64_t>(c.ids.size());
  // Every metric the run describes has its column, and no other.
  if (c.values.size() != c.run.metrics.size()) {
    return BadData(what + ": \"values\" must hold one list per metric of the run");
  }
  for (size_t i = 0; i < c.values.size(); ++i) {
    if (c.values[i].first != c.run.metrics[i].key) {
      return BadData(what + ": \"values\" must list the run's metrics in its order");
    }
  }
  return c;
}

}  // namespace tala::history

namespace tala {

using history::BadData;
using simdjson::dom::element;

std::string RunsJson(const std::vector<HistoryRun>& runs) {
  std::string out = "{\"runs\":[";
  for (size_t i = 0; i < runs.size(); ++i) {
    if (i) out += ',';
    history::AppendRunJson(out, runs[i]);
  }
  return out + "]}";
}

Result<std::vector<HistoryRun>> ParseRunsJson(const std::string& json) {
  simdjson::dom::parser parser;
  element root;
  simdjson::dom::array runs;
  if (parser.parse(json).get(root) || root["runs"].get_array().get(runs)) {
    return BadData("the history's runs: not a JSON object with a \"runs\" list");
  }
  std::string what = "the history's runs";
  history::Reader r{what};
  std::vector<HistoryRun> out;
  for (element e : runs) out.push_back(history::ReadRun(e, r));
  if (!r.status.ok()) return r.status;
  return out;
}

std::string TrendJson(const Trend& t) {
  std::string out = "{";
  history::Field(out, "metric", t.metric);
  history::Field(out, "direction", t.direction == Direction::kLowerIsBetter ? "lower" : "higher");
  history::Number(out, "min_effect", t.min_effect);
  out += "\"points\":[";
  for (size_t i = 0; i < t.points.size(); ++i) {
    if (i) out += ',';
    history::AppendTrendPoint(out, t.points[i]);
  }
  return out + "]}";
}

Result<Trend> ParseTrendJson(const std::string& json) {
  simdjson::dom::parser parser;
  element root;
  simdjson::dom::array points;
  if (parser.parse(json).get(root) || root["points"].get_array().get(points)) {
    return BadData("the history's trend: not a JSON object with a \"points\" list");
  }
  std::string what = "the history's trend";
  history::Reader r{what};
  Trend t;
  std::string direction;
  r.Str(root, "metric", t.metric);
  r.Str(root, "direction", direction);
  t.direction = direction == "lower" ? Direction::kLowerIsBetter : Direction::kHigherIsBetter;
  r.Num(root, "min_effect", t.min_effect);
  for (element e : points) {
    TrendPoint p;
    element run;
    if (!e["run"].get(run)) p.run = history::ReadRun(run, r);
    r.Int(e, "scored", p.scored);
    r.Num(e, "mean", p.mean);
    r.Num(e, "ci_low", p.ci_low);
    r.Num(e, "ci_high", p.ci_high);
    int64_t segment = 0;
    r.Int(e, "segment", segment);
    p.segment = static_cast<int>(segment);
    r.Str(e, "new_segment", p.new_segment);
    r.Bool(e, "compared", p.compared);
    r.Int(e, "base_id", p.base_id);
    r.Int(e, "pairs", p.pairs);
    r.Num(e, "change", p.change);
    r.Num(e, "change_low", p.change_low);
    r.Num(e, "change_high", p.change_high);
    r.Bool(e, "drop", p.drop);
    t.points.push_back(std::move(p));
  }
  if (!r.status.ok()) return r.status;
  return t;
}

}  // namespace tala
