// tala._tala: the compiled half of the Python package. Binds the public engine API
// (include/tala/*.h) and nothing else: options come in as a dict of the EvalOptions fields,
// answers go out as plain dicts and lists; the pure-Python layer (python/tala/) shapes them into
// exceptions and objects. The GIL is released while the engine runs.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <csignal>
#include <mutex>
#include <optional>

#include "analysis_bindings.h"
#include "convert.h"
#include "io/readers/field_names.h"
#include "python_judge.h"
#include "rows_jsonl.h"
#include "tala/evaluate.h"
#include "tala/merge.h"
#include "tala/metric.h"
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
  if (!progress.is_none()) {
    o.progress = [&progress, &raised](const Progress& p) {
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
