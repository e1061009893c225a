// The engine's analyses on results files, bound for Python: gate, compare, calibrate, power,
// the reports and the run history (answers as JSON text, read by tala/_history.py). Each returns
// {"ok": True, ...} or {"ok": False, "error": {...}}; the pure-Python layer raises the matching
// exception. The GIL is released while files are read.

#include "analysis_bindings.h"

#include <pybind11/stl.h>

#include "convert.h"
#include "tala/align.h"
#include "tala/calibrate.h"
#include "tala/compare.h"
#include "tala/gate.h"
#include "tala/history.h"
#include "tala/pairwise.h"
#include "tala/power.h"
#include "tala/report.h"
#include "tala/testset.h"

namespace py = pybind11;

namespace tala::python {

namespace {
template <typename T, typename Fn>
Result<T> Unlocked(Fn fn) {
  Result<T> out = Status(ErrorCode::kInternal, "not run");
  {
    py::gil_scoped_release release;
    out = fn();
  }
  return out;
}

template <typename T>
py::dict Answer(const Result<T>& r, py::object value) {
  py::dict out;
  out["ok"] = r.has_value();
  if (r.has_value()) {
    out["value"] = std::move(value);
  } else {
    out["error"] = ErrorDict(r.error());
  }
  return out;
}

py::object Optional(const std::optional<double>& v) { return v ? py::cast(*v) : py::none(); }

py::dict Gate(const GateOptions& options) {
  auto checks = Unlocked<std::vector<GateCheck>>([&] { return tala::Gate(options); });
  py::list list;
  if (checks) {
    for (const GateCheck& c : *checks) {
      list.append(py::dict(py::arg("name") = c.name, py::arg("pass") = c.pass,
                           py::arg("detail") = c.detail));
    }
  }
  return Answer(checks, list);
}

// One History per call: a store is used from one thread, and calls come from any.
template <typename T, typename Fn>
Result<T> WithHistory(const std::string& store, const std::string& token, Fn fn) {
  return Unlocked<T>([&]() -> Result<T> {
    TALA_ASSIGN_OR_RETURN(auto history, History::Open(store, token));
    return fn(*history);
  });
}

py::list Moves(const std::vector<RowMove>& moves) {
  py::list out;
  for (const RowMove& m : moves) out.append(py::make_tuple(m.id, m.change));
  return out;
}

py::dict Compare(const CompareOptions& options) {
  auto c = Unlocked<Comparison>([&] { return tala::Compare(options); });
  py::dict value;
  if (c) {
    py::list metrics;
    for (const MetricComparison& m : c->metrics) {
      metrics.append(py::dict(
          py::arg("metric") = m.metric,
          py::arg("direction") = m.direction == Direction::kHigherIsBetter ? "higher" : "lower",
          py::arg("pairs") = m.pairs, py::arg("base_mean") = m.base_mean,
          py::arg("candidate_mean") = m.candidate_mean, py::arg("difference") = m.difference,
          py::arg("ci") = py::make_tuple(m.ci_low, m.ci_high), py::arg("p_value") = m.p_value,
          py::arg("verdict") = m.verdict, py::arg("gains") = Moves(m.gains),
          py::arg("losses") = Moves(m.losses)));
    }
    value["metrics"] = metrics;
    value["unmatched_rows"] = c->unmatched_rows;
    value["version_warning"] = c->version_warning;
    value["judge_warning"] = c->judge_warning;
    value["text"] = FormatComparison(*c);
  }
  return Answer(c, value);
}

py::dict Calibrate(const CalibrateOptions& options) {
  auto c = Unlocked<Calibration>([&] { return tala::Calibrate(options); });
  py::dict value;
  if (c) {
    value["n"] = c->n;
    value["undefined_judge"] = c->undefined_judge;
    value["missing_human"] = c->missing_human;
    value["threshold"] = c->threshold;
    value["raw_agreement"] = Optional(c->raw_agreement);
    value["kappa"] = Optional(c->kappa);
    value["confusion"] =
        py::dict(py::arg("tp") = c->true_positive, py::arg("fp") = c->false_positive,
                 py::arg("tn") = c->true_negative, py::arg("fn") = c->false_negative);
    value["auroc"] = Optional(c->auroc);
    value["best_threshold"] = Optional(c->best_threshold);
    value["best_threshold_accuracy"] = Optional(c->best_threshold_accuracy);
    value["pairwise_accuracy"] = Optional(c->pairwise_accuracy);
    value["pairs"] = c->pairs;
    value["text"] = FormatCalibration(*c);
  }
  return Answer(c, value);
}

py::dict Power(const PowerQuery& q) {
  auto a = tala::Power(q);
  py::dict value;
  if (a) {
    value["kind"] = a->kind;
    if (a->kind == "margin") {
      value["margin"] = a->margin;
      value["interval"] = py::make_tuple(a->low, a->high);
    } else {
      value["rows"] = a->rows;
    }
    value["text"] = a->text;
  }
  return Answer(a, value);
}

py::dict Reports(const std::string& results, const ReportPaths& paths) {
  auto written =
      Unlocked<std::vector<std::string>>([&] { return tala::WriteReports(results, paths); });
  return Answer(written, written ? py::cast(*written) : py::none());
}
}  // namespace

// A metric's blend refit (AlignedBlend) as a dict; None when there was none, or a string saying
// why not.
py::object BlendValue(const AlignedMetric& a) {
  if (!a.blend) return a.blend_note.empty() ? py::none() : py::object(py::str(a.blend_note));
  const AlignedBlend& b = *a.blend;
  return py::dict(
      py::arg("features") = b.features, py::arg("weights") = b.weights, py::arg("pull") = b.pull,
      py::arg("rows") = b.rows, py::arg("accuracy") = b.accuracy,
      py::arg("threshold_only_accuracy") = b.threshold_only_accuracy,
      py::arg("kappa") = Optional(b.kappa), py::arg("auroc_before") = Optional(b.auroc_before),
      py::arg("auroc_after") = Optional(b.auroc_after),
      py::arg("gain_over_threshold_ci") = py::make_tuple(b.gain_low, b.gain_high),
      py::arg("kept") = b.kept);
}

// tala align's fit: the figures per metric, the text the CLI prints and the profile's JSON.
py::dict AlignAnswer(const AlignOptions& options) {
  auto aligned = Unlocked<Alignment>([&] { return tala::Align(options); });
  py::dict value;
  if (aligned) {
    py::list metrics;
    for (const AlignedMetric& a : aligned->metrics) {
      metrics.append(py::dict(
          py::arg("metric") = a.metric, py::arg("labels") = a.labels,
          py::arg("positives") = a.positives, py::arg("threshold") = a.threshold,
          py::arg("accuracy_before") = a.accuracy_before,
          py::arg("accuracy_after") = a.accuracy_after,
          py::arg("kappa_before") = Optional(a.kappa_before),
          py::arg("kappa_after") = Optional(a.kappa_after), py::arg("auroc") = Optional(a.auroc),
          py::arg("gain") = a.gain, py::arg("gain_ci") = py::make_tuple(a.gain_low, a.gain_high),
          py::arg("improves") = a.improves, py::arg("blend") = BlendValue(a)));
    }
    value["metrics"] = metrics;
    value["improves"] = aligned->improves;
    value["text"] = FormatAlignment(*aligned);
    value["profile"] = JudgeProfileJson(*aligned, options);
  }
  return Answer(aligned, value);
}

void BindAnalyses(py::module_& m) {
  m.def(
      "align",
      [](const std::string& results, const std::string& labels,
         const std::vector<std::string>& metrics, int folds, uint64_t seed,
         const std::string& data) {
        return AlignAnswer({.results = results,
                            .labels = labels,
                            .metrics = metrics,
                            .folds = folds,
                            .seed = seed,
                            .data = data});
      },
      py::arg("results"), py::arg("labels"), py::arg("metrics"), py::arg("folds"), py::arg("seed"),
      py::arg("data"));
  m.def(
      "gate",
      [](const std::string& results, const std::map<std::string, double>& min,
         const std::string& baseline, const std::map<std::string, double>& max_drop) {
        return Gate({.results = results, .min = min, .baseline = baseline, .max_drop = max_drop});
      },
      py::arg("results"), py::arg("min"), py::arg("baseline"), py::arg("max_drop"));
  m.def(
      "history_add",
      [](const std::string& store, const std::string& token, const std::string& results,
         const std::string& label, const HistoryTags& tags, const std::string& report) {
        auto added = WithHistory<HistoryAdded>(store, token, [&](History& h) {
          return h.Add({.results = results, .label = label, .tags = tags, .report = report});
        });
        return Answer(added, added
                                 ? py::object(py::make_tuple(added->added, RunsJson({added->run})))
                                 : py::object(py::none()));
      },
      py::arg("store"), py::arg("token"), py::arg("results"), py::arg("label"), py::arg("tags"),
      py::arg("report"));
  m.def(
      "history_runs",
      [](const std::string& store, const std::string& token, const HistoryTags& tags) {
        auto runs = WithHistory<std::vector<HistoryRun>>(store, token,
                                                         [&](History& h) { return h.Runs(tags); });
        return Answer(runs, runs ? py::cast(RunsJson(*runs)) : py::object(py::none()));
      },
      py::arg("store"), py::arg("token"), py::arg("tags"));
  m.def(
      "history_trend",
      [](const std::string& store, const std::string& token, const std::string& metric,
         const HistoryTags& tags, double min_effect) {
        auto trend = WithHistory<Trend>(store, token, [&](History& h) {
          return h.TrendOf({.metric = metric, .tags = tags, .min_effect = min_effect});
        });
        return Answer(trend, trend ? py::cast(TrendJson(*trend)) : py::object(py::none()));
      },
      py::arg("store"), py::arg("token"), py::arg("metric"), py::arg("tags"),
      py::arg("min_effect"));
  m.def(
      "history_page",
      [](const std::string& store, const std::string& token, const std::string& metric,
         const HistoryTags& tags, double min_effect) {
        auto page = WithHistory<std::string>(store, token, [&](History& h) {
          return h.PageHtml({.metric = metric, .tags = tags, .min_effect = min_effect});
        });
        return Answer(page, page ? py::cast(*page) : py::object(py::none()));
      },
      py::arg("store"), py::arg("token"), py::arg("metric"), py::arg("tags"),
      py::arg("min_effect"));
  m.def(
      "history_prune",
      [](const std::string& store, const std::string& token, int64_t keep, double older) {
        auto removed = WithHistory<int64_t>(store, token, [&](History& h) {
          return h.Prune({.keep = keep, .older_than_days = older});
        });
        return Answer(removed, removed ? py::cast(*removed) : py::object(py::none()));
      },
      py::arg("store"), py::arg("token"), py::arg("keep"), py::arg("older_than_days"));
  m.def(
      "testset_build",
      [](const std::string& logs, const std::string& docs, const std::string& heldout, int64_t size,
         uint64_t seed, const std::string& judge, double synthetic_share, bool dry_run,
         const py::dict& llm) {
        TestsetOptions o{.logs = logs,
                         .docs = docs,
                         .heldout = heldout,
                         .size = size,
                         .seed = seed,
                         .judge = judge,
                         .llm = ToOptions(llm).llm,
                         .synthetic_share = synthetic_share,
                         .dry_run = dry_run};
        auto built = Unlocked<Testset>([&] { return BuildTestset(o); });
        py::object value = py::none();
        if (built) {
          py::list items;
          for (const TestsetItem& item : built->items) items.append(TestsetItemJson(item));
          value = py::make_tuple(items, TestsetReportJson(built->report),
                                 TestsetReportText(built->report));
        }
        return Answer(built, value);
      },
      py::arg("logs"), py::arg("docs"), py::arg("heldout"), py::arg("size"), py::arg("seed"),
      py::arg("judge"), py::arg("synthetic_share"), py::arg("dry_run"), py::arg("llm"));
  m.def(
      "testset_accept",
      [](const std::string& candidates, const std::string& labels) {
        auto accepted =
            Unlocked<AcceptedTestset>([&] { return AcceptTestset(candidates, labels); });
        py::object value = py::none();
        if (accepted) {
          value = py::dict(py::arg("golden_jsonl") = accepted->golden_jsonl,
                           py::arg("accepted") = accepted->accepted,
                           py::arg("edited") = accepted->edited,
                           py::arg("unanswerable") = accepted->unanswerable,
                           py::arg("rejected") = accepted->rejected,
                           py::arg("needs_expert") = accepted->needs_expert,
                           py::arg("unlabelled") = accepted->unlabelled);
        }
        return Answer(accepted, value);
      },
      py::arg("candidates"), py::arg("labels"));
  m.def(
      "compare",
      [](const std::string& base, const std::string& candidate, int top, bool allow) {
        return Compare(
            {.base = base, .candidate = candidate, .top = top, .allow_version_mismatch = allow});
      },
      py::arg("base"), py::arg("candidate"), py::arg("top"), py::arg("allow_version_mismatch"));
  // tala compare --pairwise: the judge's settings come as tala.evaluate's options dict.
  m.def(
      "compare_pairwise",
      [](const std::string& base, const std::string& candidate, const std::string& criterion,
         const py::dict& eval, bool sequential, double min_win_rate, double target_width,
         double alpha, uint64_t order_seed) {
        PairwiseOptions o;
        o.base = base;
        o.candidate = candidate;
        o.criterion = criterion;
        o.eval = ToOptions(eval);
        o.sequential = {.on = sequential,
                        .alpha = alpha,
                        .seed = order_seed,
                        .min_win_rate = min_win_rate,
                        .target_width = target_width};
        auto r = Unlocked<PairwiseReport>([&] { return ComparePairwise(o); });
        return Answer(r, r ? py::cast(PairwiseJson(*r)) : py::object(py::none()));
      },
      py::arg("base"), py::arg("candidate"), py::arg("criterion"), py::arg("eval"),
      py::arg("sequential") = false, py::arg("min_win_rate") = -1.0, py::arg("target_width") = 0.0,
      py::arg("alpha") = 0.05, py::arg("order_seed") = 42);
  m.def(
      "calibrate",
      [](const std::string& file, const std::string& human, const std::string& judge,
         const std::string& positive, const std::string& pair_by, double threshold) {
        return Calibrate({.file = file,
                          .human = human,
                          .judge = judge,
                          .positive = positive,
                          .pair_by = pair_by,
                          .threshold = threshold});
      },
      py::arg("file"), py::arg("human"), py::arg("judge"), py::arg("positive"), py::arg("pair_by"),
      py::arg("threshold"));
  m.def(
      "power",
      [](std::optional<double> p, std::optional<long> n, std::optional<double> p1,
         std::optional<double> p2, bool paired, std::optional<double> discordant, double alpha,
         double power) {
        return Power({.p = p,
                      .n = n,
                      .p1 = p1,
                      .p2 = p2,
                      .paired = paired,
                      .discordant = discordant,
                      .alpha = alpha,
                      .power = power});
      },
      py::arg("p"), py::arg("n"), py::arg("p1"), py::arg("p2"), py::arg("paired"),
      py::arg("discordant"), py::arg("alpha"), py::arg("power"));
  m.def(
      "write_reports",
      [](const std::string& results, const std::string& html, const std::string& markdown,
         const std::string& csv, const std::string& junit) {
        return Reports(results, {.markdown = markdown, .csv = csv, .junit = junit, .html = html});
      },
      py::arg("results"), py::arg("html"), py::arg("markdown"), py::arg("csv"), py::arg("junit"));
}

}  // namespace tala::python
