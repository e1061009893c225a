// Conversions between the engine's types and the Python layer's dicts.

#include "convert.h"

#include <pybind11/stl.h>

#include <optional>

#include "tala/align.h"

namespace py = pybind11;

namespace tala::python {

namespace {
template <typename T>
void Take(const py::dict& d, const char* key, T& field) {
  if (d.contains(key) && !d[key].is_none()) field = d[key].cast<T>();
}

// {"name": {"prompt": ..., "output": "discrete", "values": [...], ...}}, checked as strictly as
// the [metrics.NAME] tables of tala.toml.
std::vector<UserMetricDef> UserMetrics(const py::dict& all) {
  std::vector<UserMetricDef> out;
  for (auto [name, spec] : all) {
    UserMetricDef def;
    def.name = py::str(name);
    def.where = "user_metrics[\"" + def.name + "\"]";
    py::dict d = spec.cast<py::dict>();
    for (auto [k, v] : d) {
      std::string key = py::str(k);
      if (key == "prompt") {
        def.prompt = v.cast<std::string>();
      } else if (key == "output") {
        std::string o = v.cast<std::string>();
        if (o != "discrete" && o != "numeric" && o != "ranking") {
          throw py::value_error(def.where + "[\"output\"] must be discrete, numeric or ranking");
        }
        def.output = o == "discrete"  ? UserMetricDef::Output::kDiscrete
                     : o == "numeric" ? UserMetricDef::Output::kNumeric
                                      : UserMetricDef::Output::kRanking;
      } else if (key == "values") {
        def.values = v.cast<std::vector<std::string>>();
      } else if (key == "min") {
        def.min = v.cast<double>();
      } else if (key == "max") {
        def.max = v.cast<double>();
      } else if (key == "integer") {
        def.integer = v.cast<bool>();
      } else if (key == "direction") {
        std::string dir = v.cast<std::string>();
        if (dir != "higher" && dir != "lower") {
          throw py::value_error(def.where + "[\"direction\"] must be higher or lower");
        }
        def.direction = dir == "higher" ? Direction::kHigherIsBetter : Direction::kLowerIsBetter;
      } else {
        throw py::value_error(def.where + " has no key \"" + key +
                              "\" (keys: prompt, output, values, min, max, integer, direction)");
      }
    }
    out.push_back(std::move(def));
  }
  return out;
}

}  // namespace

EvalOptions ToOptions(const py::dict& d) {
  EvalOptions o;
  Take(d, "dataset", o.dataset);
  Take(d, "format", o.format);
  Take(d, "metrics", o.metrics);
  Take(d, "k", o.ks);
  Take(d, "judge", o.judge);
  Take(d, "out", o.out);
  std::string on_error = "fail";
  Take(d, "on_error", on_error);
  if (on_error != "fail" && on_error != "skip") {
    throw py::value_error("on_error must be \"fail\" or \"skip\", not \"" + on_error + "\"");
  }
  o.on_error = on_error == "skip" ? OnError::kSkip : OnError::kFail;
  Take(d, "diagnosis_threshold", o.diagnosis_threshold);
  Take(d, "diagnosis_thresholds", o.diagnosis_thresholds);
  std::string profile_path;
  Take(d, "judge_profile", profile_path);
  if (!profile_path.empty()) {
    // tala align's thresholds, under any given in diagnosis_thresholds; recorded in the manifest.
    auto digest = ApplyJudgeProfile(profile_path, o.diagnosis_thresholds, &o.llm.labelled_examples,
                                    &o.offline_blend);
    if (!digest) throw py::value_error(digest.error().ToString());
    o.judge_profile = *digest;
  }
  Take(d, "resume", o.resume);
  Take(d, "overwrite", o.overwrite);
  Take(d, "repeats", o.repeats);
  Take(d, "threads", o.threads);
  Take(d, "labels", o.labels);
  Take(d, "rubrics", o.rubrics);
  if (d.contains("user_metrics") && !d["user_metrics"].is_none()) {
    o.user_metrics = UserMetrics(d["user_metrics"].cast<py::dict>());
  }
  LlmOptions& l = o.llm;
  Take(d, "base_url", l.base_url);
  Take(d, "api_key", l.api_key);
  Take(d, "embeddings", l.embeddings);
  Take(d, "embeddings_base_url", l.embeddings_base_url);
  Take(d, "temperature", l.temperature);
  Take(d, "max_tokens", l.max_tokens);
  Take(d, "structured_output", l.structured_output);
  Take(d, "max_in_flight", l.max_in_flight);
  Take(d, "requests_per_minute", l.requests_per_minute);
  Take(d, "tokens_per_minute", l.tokens_per_minute);
  Take(d, "timeout_ms", l.timeout_ms);
  Take(d, "max_retries", l.max_retries);
  Take(d, "batching", l.batching);
  Take(d, "layout", l.layout);
  Take(d, "prompt_cache_key", l.prompt_cache_key);
  Take(d, "questions", l.questions);
  Take(d, "cache", l.cache);
  if (d.contains("seed")) {
    l.seed = d["seed"].is_none() ? std::nullopt : std::optional<int64_t>(d["seed"].cast<int64_t>());
  }
  return o;
}

py::dict ErrorDict(const Status& s) {
  py::dict e;
  e["code"] = std::string(ErrorCodeName(s.code()));
  e["message"] = s.message();
  e["text"] = s.ToString();
  e["file"] = s.where().file;
  e["line"] = s.where().line;
  e["field"] = s.where().field;
  return e;
}

py::dict SummaryDict(const RunSummary& s) {
  py::dict out;
  out["judge"] = s.judge;
  out["results_path"] = s.results_path;
  out["rows_read"] = s.rows_read;
  out["rows_scored"] = s.rows_scored;
  out["rows_skipped"] = s.rows_skipped;
  out["rows_failed"] = s.rows_failed;
  out["rows_resumed"] = s.rows_resumed;
  py::list metrics;
  for (const MetricSummary& m : s.metrics) {
    py::dict d;
    d["key"] = m.key;
    d["mean"] = m.scored > 0 ? py::cast(m.mean()) : py::none();
    d["ci"] = m.scored > 0 ? py::object(py::make_tuple(m.ci_low, m.ci_high)) : py::none();
    d["median"] = m.scored > 0 ? py::cast(m.median) : py::none();
    d["stddev"] = m.scored > 0 ? py::cast(m.stddev) : py::none();
    d["interval"] = m.interval;
    d["scored"] = m.scored;
    d["undefined"] = m.undefined;
    d["failed"] = m.failed;
    d["direction"] = m.direction == Direction::kHigherIsBetter ? "higher" : "lower";
    metrics.append(d);
  }
  out["metrics"] = metrics;
  out["diagnoses"] = s.diagnoses;
  out["principal_failure"] = s.principal_failure;
  out["notes"] = s.notes;
  out["warnings"] = s.warnings;
  out["failure_reasons"] = s.failure_reasons;
  py::list errors;
  for (const Status& e : s.errors) errors.append(ErrorDict(e));
  out["errors"] = errors;
  out["table"] = FormatSummary(s);
  out["html"] = FormatSummaryHtml(s);
  return out;
}

py::dict SampleDict(const Sample& s) {
  py::dict d;
  d["id"] = s.id_is_number ? py::object(py::int_(py::str(s.id))) : py::object(py::str(s.id));
  if (s.is_multi_turn()) {
    py::list messages;
    for (const Message& m : s.messages) {
      py::dict message;
      message["type"] = m.type == Message::Type::kHuman ? "human"
                        : m.type == Message::Type::kAi  ? "ai"
                                                        : "tool";
      message["content"] = m.content;
      if (!m.tool_calls_json.empty()) message["tool_calls_json"] = m.tool_calls_json;
      messages.append(message);
    }
    d["user_input"] = messages;
  } else if (s.user_input) {
    d["user_input"] = *s.user_input;
  }
  auto put = [&d](const char* key, const auto& value) {
    if (value) d[key] = *value;
  };
  put("response", s.response);
  put("retrieved_contexts", s.retrieved_contexts);
  put("reference", s.reference);
  put("reference_contexts", s.reference_contexts);
  put("retrieved_context_ids", s.retrieved_context_ids);
  put("reference_context_ids", s.reference_context_ids);
  put("rubrics", s.rubrics);
  put("reference_topics", s.reference_topics);
  py::dict metadata;
  for (const auto& [name, raw] : s.metadata) metadata[py::str(name)] = raw;
  d["metadata"] = metadata;
  return d;
}

}  // namespace tala::python
