// tala._tala: the compiled half of the Python package. Binds the public engine API
// (include/tala/evaluate.h) and nothing else: options come in as a dict of the EvalOptions
// fields, the summary goes out as plain dicts and lists; the pure-Python layer (python/tala/)
// shapes them into exceptions and a Result. The GIL is released while the engine runs.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <csignal>
#include <mutex>
#include <optional>

#include "tala/evaluate.h"
#include "tala/gate.h"
#include "tala/metric.h"
#include "tala/sample.h"

namespace py = pybind11;

namespace {

// Ctrl-C while any evaluation runs stops them all cleanly. The handler is installed by the
// first evaluation to start and Python's put back by the last to finish, so two evaluations on
// two threads do not lose it.
std::atomic<bool> g_stop{false};
std::mutex g_runs_mu;
int g_runs = 0;                           // guarded by g_runs_mu
void (*g_python_handler)(int) = nullptr;  // guarded by g_runs_mu

void OnInterrupt(int) { g_stop = true; }

void BeginRun() {
  std::lock_guard<std::mutex> lock(g_runs_mu);
  if (g_runs++ == 0) {
    g_stop = false;
    g_python_handler = std::signal(SIGINT, OnInterrupt);
  }
}

void EndRun() {
  std::lock_guard<std::mutex> lock(g_runs_mu);
  if (--g_runs == 0) std::signal(SIGINT, g_python_handler);
}

template <typename T>
void Take(const py::dict& d, const char* key, T& field) {
  if (d.contains(key) && !d[key].is_none()) field = d[key].cast<T>();
}

tala::EvalOptions ToOptions(const py::dict& d) {
  tala::EvalOptions o;
  Take(d, "dataset", o.dataset);
  Take(d, "format", o.format);
  Take(d, "metrics", o.metrics);
  Take(d, "k", o.ks);
  Take(d, "judge", o.judge);
  Take(d, "out", o.out);
  std::string on_error = "fail";
  Take(d, "on_error", on_error);
  o.on_error = on_error == "skip" ? tala::OnError::kSkip : tala::OnError::kFail;
  Take(d, "diagnosis_threshold", o.diagnosis_threshold);
  Take(d, "diagnosis_thresholds", o.diagnosis_thresholds);
  Take(d, "resume", o.resume);
  Take(d, "repeats", o.repeats);
  tala::LlmOptions& l = o.llm;
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
  Take(d, "questions", l.questions);
  Take(d, "cache", l.cache);
  if (d.contains("seed")) {
    l.seed = d["seed"].is_none() ? std::nullopt : std::optional<int64_t>(d["seed"].cast<int64_t>());
  }
  return o;
}

py::dict ErrorDict(const tala::Status& s) {
  py::dict e;
  e["code"] = std::string(tala::ErrorCodeName(s.code()));
  e["message"] = s.message();
  e["text"] = s.ToString();
  e["file"] = s.where().file;
  e["line"] = s.where().line;
  e["field"] = s.where().field;
  return e;
}

py::dict SummaryDict(const tala::RunSummary& s) {
  py::dict out;
  out["judge"] = s.judge;
  out["results_path"] = s.results_path;
  out["rows_read"] = s.rows_read;
  out["rows_scored"] = s.rows_scored;
  out["rows_skipped"] = s.rows_skipped;
  out["rows_failed"] = s.rows_failed;
  out["rows_resumed"] = s.rows_resumed;
  py::list metrics;
  for (const tala::MetricSummary& m : s.metrics) {
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
    d["direction"] = m.direction == tala::Direction::kHigherIsBetter ? "higher" : "lower";
    metrics.append(d);
  }
  out["metrics"] = metrics;
  out["diagnoses"] = s.diagnoses;
  out["principal_failure"] = s.principal_failure;
  out["notes"] = s.notes;
  out["warnings"] = s.warnings;
  out["failure_reasons"] = s.failure_reasons;
  py::list errors;
  for (const tala::Status& e : s.errors) errors.append(ErrorDict(e));
  out["errors"] = errors;
  out["table"] = tala::FormatSummary(s);
  return out;
}

// Runs one evaluation. Returns {"ok": True, "summary": {...}} or {"ok": False, "error": {...},
// "partial": {...}}: the Python layer raises the matching exception, keeping the partial summary
// (rows already written stay in the results file).
py::dict Evaluate(const py::dict& options, const py::object& progress) {
  tala::EvalOptions o = ToOptions(options);
  o.stop = &g_stop;
  // progress(rows_done, rows_total), called with the GIL held; an exception from it stops the
  // run cleanly and is raised once the engine has returned.
  std::optional<py::error_already_set> raised;
  if (!progress.is_none()) {
    o.progress = [&progress, &raised](const tala::Progress& p) {
      py::gil_scoped_acquire acquire;
      if (raised) return;
      try {
        progress(p.rows_done, p.rows_total);
      } catch (py::error_already_set& e) {
        raised.emplace(std::move(e));
        g_stop = true;
      }
    };
  }
  tala::RunSummary partial;
  tala::Result<tala::RunSummary> result = tala::Status(tala::ErrorCode::kInternal, "not run");
  {
    py::gil_scoped_release release;
    // Ctrl-C while the engine runs: stop cleanly, then let Python raise KeyboardInterrupt.
    BeginRun();
    result = tala::Evaluate(o, &partial);
    EndRun();
  }
  if (raised) throw std::move(*raised);
  py::dict out;
  out["ok"] = result.has_value();
  if (result) {
    out["summary"] = SummaryDict(*result);
  } else {
    out["error"] = ErrorDict(result.error());
    out["partial"] = SummaryDict(partial);
  }
  return out;
}

// The metric registry, as `tala metrics --json` lists it.
py::list Metrics() {
  py::list out;
  for (const tala::MetricInfo& m : tala::AllMetricInfos()) {
    py::dict d;
    d["name"] = m.name;
    d["aliases"] = m.aliases;
    py::list fields;
    for (tala::Field f : tala::AllFields()) {
      if (tala::Contains(m.required_fields, f)) fields.append(tala::FieldName(f));
    }
    d["required_fields"] = fields;
    d["needs_llm"] = m.needs_llm;
    d["needs_embeddings"] = m.needs_embeddings;
    d["direction"] = m.direction == tala::Direction::kHigherIsBetter ? "higher" : "lower";
    d["definition"] = m.summary;
    d["offline_note"] = m.offline_note;
    d["version"] = m.version;
    out.append(d);
  }
  return out;
}

// tala::Gate: {"ok": True, "checks": [{"name", "pass", "detail"}]} or {"ok": False, "error"}.
py::dict Gate(const std::string& results, const std::map<std::string, double>& min,
              const std::string& baseline, const std::map<std::string, double>& max_drop) {
  tala::Result<std::vector<tala::GateCheck>> checks =
      tala::Status(tala::ErrorCode::kInternal, "not run");
  {
    py::gil_scoped_release release;
    checks =
        tala::Gate({.results = results, .min = min, .baseline = baseline, .max_drop = max_drop});
  }
  py::dict out;
  out["ok"] = checks.has_value();
  if (!checks) {
    out["error"] = ErrorDict(checks.error());
    return out;
  }
  py::list list;
  for (const tala::GateCheck& c : *checks) {
    py::dict d;
    d["name"] = c.name;
    d["pass"] = c.pass;
    d["detail"] = c.detail;
    list.append(d);
  }
  out["checks"] = list;
  return out;
}

}  // namespace

PYBIND11_MODULE(_tala, m) {
  m.doc() = "tala's engine (compiled); use the tala package, not this module";
  m.def("evaluate", &Evaluate, py::arg("options"), py::arg("progress") = py::none());
  m.def("metrics", &Metrics);
  m.def("gate", &Gate, py::arg("results"), py::arg("min"), py::arg("baseline"),
        py::arg("max_drop"));
}
