// tala._tala: the compiled half of the Python package. Binds the public engine API
// (include/tala/*.h) and nothing else: options come in as a dict of the EvalOptions fields,
// answers go out as plain dicts and lists; the pure-Python layer (python/tala/) shapes them into
// exceptions and objects. The GIL is released while the engine runs.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <csignal>
#include <functional>
#include <mutex>
#include <optional>
#include <type_traits>

#include "analysis_bindings.h"
#include "convert.h"
#include "io/readers/field_names.h"
#include "python_judge.h"
#include "rows_jsonl.h"
#include "tala/diagnose.h"
#include "tala/evaluate.h"
#include "tala/merge.h"
#include "tala/metric.h"
#include "tala/run.h"
#include "tala/sample.h"
#include "tala/shard.h"

namespace py = pybind11;

namespace tala::python {

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

// The engine's progress callback calling Python's `progress(rows_done, rows_total)`. An exception
// it raises stops the run cleanly (in `raised`), to be raised once the engine has returned.
std::function<void(const Progress&)> ProgressCallback(
    const py::object& progress, std::optional<py::error_already_set>& raised) {
  return [&progress, &raised](const Progress& p) {
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

// Runs one evaluation. Returns {"ok": True, "summary": {...}} or {"ok": False, "error": {...},
// "partial": {...}}: the Python layer raises the matching exception, keeping the partial summary
// (rows already written stay in the results file). `custom_judge` is None or a (name, answer)
// pair for a judge written in Python.
py::dict Evaluate(const py::dict& options, const py::object& progress,
                  const py::object& custom_judge) {
  EvalOptions o = ToOptions(options);
  o.stop = &g_stop;
  if (options.contains("shard") && !options["shard"].is_none()) {
    std::string by = "range";
    if (options.contains("shard_by") && !options["shard_by"].is_none()) {
      by = options["shard_by"].cast<std::string>();
    }
    auto shard = ParseShard(options["shard"].cast<std::string>(), by);
    if (!shard) {
      py::dict out;
      out["ok"] = false;
      out["error"] = ErrorDict(shard.error());
      out["partial"] = SummaryDict(RunSummary{});
      return out;
    }
    o.shard = *shard;
  }
  // An exception from a Python callback (progress or judge) stops the run cleanly and is raised
  // once the engine has returned.
  std::optional<py::error_already_set> raised;
  if (!progress.is_none()) o.progress = ProgressCallback(progress, raised);
  if (!custom_judge.is_none()) {
    auto pair = custom_judge.cast<py::tuple>();
    o.custom_judge =
        std::make_shared<PythonJudge>(pair[0].cast<std::string>(), pair[1], &raised, &g_stop);
  }
  RunSummary partial;
  Result<RunSummary> result = Status(ErrorCode::kInternal, "not run");
  {
    py::gil_scoped_release release;
    // Ctrl-C while the engine runs: stop cleanly, then let Python raise KeyboardInterrupt.
    BeginRun();
    result = tala::Evaluate(o, &partial);
    EndRun();
  }
  o.custom_judge.reset();
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

// Joins finished shards (include/tala/merge.h). {"ok": True, "summary": {...}} or
// {"ok": False, "error": {...}}.
py::dict Merge(const std::vector<std::string>& shards, const std::string& out,
               const std::string& dataset_label) {
  MergeOptions o;
  o.shards = shards;
  o.out = out;
  o.dataset_label = dataset_label;
  Result<RunSummary> result = Status(ErrorCode::kInternal, "not run");
  {
    py::gil_scoped_release release;
    result = tala::Merge(o);
  }
  py::dict answer;
  answer["ok"] = result.has_value();
  if (result) {
    answer["summary"] = SummaryDict(*result);
  } else {
    answer["error"] = ErrorDict(result.error());
  }
  return answer;
}

// Calls the system under test for every golden row (include/tala/run.h), as `tala run` does.
// `options`: golden, out, target, and RunOptions' and TargetSpec's fields by name.
// {"ok": True, "report": {...}} or {"ok": False, "error": {...}, "report": {...}} (the rows
// written so far stay in `out`).
// options[key] into `field` when it is given and not None.
template <typename T>
void Take(const py::dict& options, const char* key, T& field) {
  if (options.contains(key) && !options[key].is_none()) field = options[key].cast<T>();
}

// tala run's options from a dict (tala.run's, and tala.diagnose's run part).
RunOptions RunOptionsFrom(const py::dict& options) {
  RunOptions o;
  auto text = [&](const char* key, std::string& field) { Take(options, key, field); };
  auto number = [&](const char* key, auto& field) { Take(options, key, field); };
  text("golden", o.golden);
  text("simulate", o.simulate);
  text("user_judge", o.user_judge);
  text("user_base_url", o.user_llm.base_url);
  text("user_cache", o.user_llm.cache);
  text("out", o.out);
  text("cache", o.cache);
  number("max_in_flight", o.max_in_flight);
  number("timeout_ms", o.timeout_ms);
  number("max_retries", o.max_retries);
  number("requests_per_minute", o.requests_per_minute);
  number("max_restarts", o.max_restarts);
  number("resume", o.resume);
  TargetSpec& t = o.target;
  text("target", t.target);
  text("method", t.method);
  text("body", t.body);
  text("response", t.response);
  text("contexts", t.contexts);
  text("context_ids", t.context_ids);
  text("context_text", t.context_text);
  text("context_id", t.context_id);
  if (options.contains("headers") && !options["headers"].is_none()) {
    t.headers = options["headers"].cast<std::vector<std::string>>();
  }
  return o;
}

// tala diagnose (tala/diagnose.h): `options` holds the run's options, the experiment's
// (out_dir, docs, conditions, sample, seed, all_rows, threshold) and `eval`, tala.evaluate's.
py::dict Diagnose(const py::dict& options) {
  DiagnoseOptions d;
  d.run = RunOptionsFrom(options);
  d.eval = ToOptions(options.contains("eval") ? options["eval"].cast<py::dict>() : py::dict());
  auto text = [&](const char* key, std::string& field) { Take(options, key, field); };
  auto number = [&](const char* key, auto& field) { Take(options, key, field); };
  text("out_dir", d.out_dir);
  text("docs", d.docs);
  number("sample", d.sample);
  number("seed", d.seed);
  number("all_rows", d.all_rows);
  number("threshold", d.threshold);
  number("dry_run", d.dry_run);
  if (options.contains("conditions") && !options["conditions"].is_none()) {
    d.conditions = options["conditions"].cast<std::vector<std::string>>();
  }
  d.run.stop = &g_stop;
  d.eval.stop = &g_stop;
  Result<DiagnoseReport> result = Status(ErrorCode::kInternal, "not run");
  {
    py::gil_scoped_release release;
    BeginRun();
    result = DiagnoseByExperiment(d);
    EndRun();
  }
  py::dict out;
  out["ok"] = result.has_value();
  if (result) {
    out["json"] = DiagnoseJson(*result);
    out["text"] = FormatDiagnoseReport(*result);
  } else {
    out["error"] = ErrorDict(result.error());
  }
  return out;
}

py::dict Run(const py::dict& options, const py::object& progress) {
  RunOptions o = RunOptionsFrom(options);
  o.stop = &g_stop;
  std::optional<py::error_already_set> raised;
  if (!progress.is_none()) o.progress = ProgressCallback(progress, raised);
  RunReport partial;
  Result<RunReport> result = Status(ErrorCode::kInternal, "not run");
  {
    py::gil_scoped_release release;
    BeginRun();
    result = tala::RunTarget(o, &partial);
    EndRun();
  }
  if (raised) throw std::move(*raised);
  const RunReport& r = result ? *result : partial;
  py::dict report;
  report["out"] = o.out;
  report["rows_read"] = r.rows_read;
  report["rows_answered"] = r.rows_answered;
  report["rows_failed"] = r.rows_failed;
  report["rows_resumed"] = r.rows_resumed;
  report["calls"] = r.calls;
  report["retries"] = r.retries;
  report["latency_mean_ms"] = r.latency_mean_ms;
  report["latency_p95_ms"] = r.latency_p95_ms;
  report["seconds"] = r.seconds;
  report["error_reasons"] = r.error_reasons;
  report["simulation_ends"] = r.simulation_ends;
  report["user_calls"] = r.user_calls;
  report["user_cache_hits"] = r.user_cache_hits;
  report["text"] = FormatRunReport(r);
  py::dict out;
  out["ok"] = result.has_value();
  out["report"] = report;
  if (!result) out["error"] = ErrorDict(result.error());
  return out;
}

// The metric registry, as `tala metrics --json` lists it.
py::list Metrics() {
  py::list out;
  for (const MetricInfo& m : AllMetricInfos()) {
    py::dict d;
    d["name"] = m.name;
    d["aliases"] = m.aliases;
    py::list fields;
    for (Field f : AllFields()) {
      if (Contains(m.required_fields, f)) fields.append(FieldName(f));
    }
    d["required_fields"] = fields;
    d["needs_llm"] = m.needs_llm;
    d["needs_embeddings"] = m.needs_embeddings;
    d["direction"] = m.direction == Direction::kHigherIsBetter ? "higher" : "lower";
    d["definition"] = m.summary;
    d["offline_note"] = m.offline_note;
    d["version"] = m.version;
    d["family"] = m.family;
    d["by_default"] = m.by_default;
    out.append(d);
  }
  return out;
}

}  // namespace

}  // namespace tala::python

PYBIND11_MODULE(_tala, m) {
  m.doc() = "tala's engine (compiled); use the tala package, not this module";
  m.def("evaluate", &tala::python::Evaluate, py::arg("options"), py::arg("progress") = py::none(),
        py::arg("custom_judge") = py::none());
  m.def("metrics", &tala::python::Metrics);
  m.def("run", &tala::python::Run, py::arg("options"), py::arg("progress") = py::none());
  m.def("diagnose", &tala::python::Diagnose, py::arg("options"));
  m.def("merge", &tala::python::Merge, py::arg("shards"), py::arg("out"),
        py::arg("dataset_label") = "");
  m.attr("__version__") = TALA_VERSION;  // the engine's, as results manifests record it
  m.def("dataset_fields", [] {
    py::dict out;
    for (const auto& [name, field] : tala::io::DatasetFieldNames()) out[py::str(name)] = field;
    return out;
  });
  m.def("write_rows_jsonl", &tala::python::WriteRowsJsonl, py::arg("rows"), py::arg("path"));
  tala::python::BindAnalyses(m);
}
