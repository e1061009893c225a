#include "tala/evaluate.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include "analysis/diagnosis.h"
#include "analysis/intervals.h"
#include "io/readers/dataset_reader.h"
#include "io/writers/results_jsonl_writer.h"
#include "judges/registry.h"
#include "metrics/registry.h"
#include "row_scorer.h"

namespace tala {

namespace {

// stdin can be read once, but a run reads its dataset twice (check, then score): spool it.
Result<std::string> SpoolStdin(std::string* cleanup) {
  char path[] = "/tmp/tala-stdin-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return IoError("cannot create a temporary file for stdin");
  std::FILE* out = fdopen(fd, "wb");
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
    if (std::fwrite(buf, 1, n, out) != n) {
      std::fclose(out);
      return IoError("cannot spool stdin to " + std::string(path));
    }
  }
  std::fclose(out);
  *cleanup = path;
  return std::string(path);
}

struct CheckPass {
  int64_t rows = 0;
  int64_t bad = 0;
  FieldSet fields = 0;
};

Result<CheckPass> CheckRows(const std::string& path, const io::ReaderOptions& ro,
                            const EvalOptions& options, RunSummary& summary) {
  TALA_ASSIGN_OR_RETURN(auto reader, io::OpenDataset(path, ro));
  CheckPass pass;
  while (auto row = reader->Next()) {
    ++pass.rows;
    if (row->has_value()) {
      pass.fields |= (*row)->fields();
      continue;
    }
    if (row->error().code() != ErrorCode::kDataError) return row->error();
    ++pass.bad;
    if (static_cast<int>(summary.errors.size()) < options.max_errors_shown) {
      summary.errors.push_back(row->error());
    }
  }
  if (pass.rows == 0) {
    return DataError({options.dataset, 0, 0, ""}, "the dataset holds no rows");
  }
  return pass;
}

std::vector<metrics::MetricSpec> DefaultSpecs(FieldSet fields) {
  std::vector<metrics::MetricSpec> specs;
  for (const auto& entry : metrics::MetricRegistry()) {
    FieldSet need = entry.info().required_fields;
    if ((fields & need) == need) specs.push_back({entry.info().name, {}});
  }
  return specs;
}

// Run-level accumulators beside the summary: every scored value (for intervals) and the rows
// that failed a stage (for the worst-rows list).
// At most this many values per metric are kept for the median, sd and interval: beyond it a
// seeded reservoir sample stands in, so memory stays bounded however many rows a run has.
constexpr size_t kValuesKept = 100000;

struct Accumulators {
  std::vector<std::vector<double>> values;
  std::vector<int64_t> seen;  // values offered per metric (the reservoir's n)
  std::mt19937_64 rng{7};
  // Metrics this judge only estimates (the offline judge's response relevancy): shown, but not
  // trusted to diagnose a row.
  std::vector<std::string> estimated;
  std::map<analysis::Diagnosis, int64_t> diagnoses;
  std::vector<std::pair<analysis::Diagnosis, DiagnosedRow>> failing;
};

void DiagnoseRow(io::RowResult& row, const EvalOptions& options, Accumulators& acc) {
  std::map<std::string, double> scores;
  for (const io::RowScore& s : row.scores) {
    if (!s.value.value) continue;
    if (std::find(acc.estimated.begin(), acc.estimated.end(), s.key) != acc.estimated.end())
      continue;
    scores.emplace(std::string(s.key), *s.value.value);
  }
  analysis::Diagnosis d = analysis::Diagnose(scores, {options.diagnosis_threshold});
  ++acc.diagnoses[d];
  row.diagnosis = std::string(analysis::DiagnosisName(d));
  std::string metric = analysis::DecidingMetric(d);
  if (!metric.empty()) acc.failing.push_back({d, {row.sample.id, row.diagnosis, scores[metric]}});
}

void Finish(Accumulators& acc, RunSummary& summary) {
  for (size_t i = 0; i < summary.metrics.size(); ++i) {
    auto st = analysis::Summarise(std::move(acc.values[i]));
    if (!st) continue;
    MetricSummary& m = summary.metrics[i];
    if (m.scored > static_cast<int64_t>(kValuesKept)) {  // a sample: centre on the exact mean
      double half = (st->ci_high - st->ci_low) / 2 * std::sqrt(double(kValuesKept) / m.scored);
      st->ci_low = m.mean() - half;
      st->ci_high = m.mean() + half;
    }
    m.median = st->median;
    m.stddev = st->stddev;
    m.ci_low = st->ci_low;
    m.ci_high = st->ci_high;
    m.interval = st->method == analysis::MetricStatistics::Method::kWilson   ? "wilson"
                 : st->method == analysis::MetricStatistics::Method::kNormal ? "normal"
                                                                             : "bootstrap";
  }
  int64_t most = 0;
  analysis::Diagnosis principal = analysis::Diagnosis::kHealthy;
  for (analysis::Diagnosis d : analysis::AllDiagnoses()) {
    auto it = acc.diagnoses.find(d);
    if (it == acc.diagnoses.end()) continue;
    summary.diagnoses.emplace_back(std::string(analysis::DiagnosisName(d)), it->second);
    if (!analysis::DecidingMetric(d).empty() && it->second > most) {
      most = it->second;
      principal = d;
    }
  }
  if (most == 0) return;
  summary.principal_failure = std::string(analysis::DiagnosisName(principal));
  std::vector<DiagnosedRow> rows;
  for (auto& [d, row] : acc.failing) {
    if (d == principal) rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const DiagnosedRow& a, const DiagnosedRow& b) { return a.score < b.score; });
  if (rows.size() > 5) rows.resize(5);
  summary.worst_rows = std::move(rows);
}

void Tally(const io::RowResult& row, RunSummary& summary, Accumulators& acc) {
  ++summary.rows_scored;
  if (!row.status.ok()) ++summary.rows_failed;
  for (size_t i = 0; i < row.scores.size(); ++i) {
    MetricSummary& m = summary.metrics[i];
    const io::RowScore& s = row.scores[i];
    if (s.value.value) {
      ++m.scored;
      m.sum += *s.value.value;
      // Reservoir sampling (Algorithm R): every value has the same chance to be kept.
      int64_t seen = ++acc.seen[i];
      if (acc.values[i].size() < kValuesKept) {
        acc.values[i].push_back(*s.value.value);
      } else if (auto j = static_cast<size_t>(acc.rng() % seen); j < kValuesKept) {
        acc.values[i][j] = *s.value.value;
      }
    } else if (s.failed) {
      ++m.failed;
    } else {
      ++m.undefined;
    }
  }
}

Status Run(const EvalOptions& options, RunSummary& summary, std::string* spooled) {
  io::ReaderOptions ro;
  TALA_ASSIGN_OR_RETURN(ro.format, io::ParseDatasetFormat(options.format));
  std::string path = options.dataset;
  if (path == "-") {
    if (ro.format == io::DatasetFormat::kAuto) ro.format = io::DatasetFormat::kJsonl;
    TALA_ASSIGN_OR_RETURN(path, SpoolStdin(spooled));
  }
  TALA_ASSIGN_OR_RETURN(CheckPass pass, CheckRows(path, ro, options, summary));
  summary.rows_read = pass.rows;
  if (pass.bad > 0 && options.on_error == OnError::kFail) {
    return DataError({options.dataset, 0, 0, ""},
                     std::to_string(pass.bad) + " of " + std::to_string(pass.rows) +
                         " rows are invalid; fix them or pass --on-error skip");
  }
  std::vector<metrics::MetricSpec> specs;
  if (options.metrics.empty()) {
    specs = DefaultSpecs(pass.fields);
    if (specs.empty()) {
      return InvalidArgument("no metric can be computed from the dataset's fields (" +
                             FieldSetNames(pass.fields) + "); see `tala metrics`");
    }
  } else {
    TALA_ASSIGN_OR_RETURN(specs, metrics::ParseMetricSpecs(options.metrics));
  }
  TALA_ASSIGN_OR_RETURN(auto metric_list,
                        metrics::CreateMetrics(metrics::ExpandCutoffs(specs, options.ks)));
  TALA_ASSIGN_OR_RETURN(auto judge, judges::CreateJudge(options.judge));
  summary.judge = judge->name();
  for (const auto& m : metric_list) {
    summary.metrics.push_back({m->key(), m->info().direction});
  }
  TALA_ASSIGN_OR_RETURN(auto writer, io::ResultsJsonlWriter::Open(
                                         options.out, io::ResultsJsonlWriter::Mode::kTruncate));
  summary.results_path = options.out;
  TALA_ASSIGN_OR_RETURN(auto reader, io::OpenDataset(path, ro));
  RowScorer scorer(metric_list, *judge);
  const int64_t to_do = pass.rows - pass.bad;
  Accumulators acc;
  acc.values.resize(metric_list.size());
  acc.seen.resize(metric_list.size());
  for (const auto& m : metric_list) {
    if (summary.judge == "offline" && !m->info().offline_note.empty()) {
      acc.estimated.push_back(m->key());
      summary.notes.push_back(m->key() + " is an offline estimate and is not used for diagnosis");
    }
  }
  while (auto row = reader->Next()) {
    if (!row->has_value()) {
      if (row->error().code() != ErrorCode::kDataError) return row->error();
      ++summary.rows_skipped;
      continue;
    }
    io::RowResult result = scorer.Score(**row);
    DiagnoseRow(result, options, acc);
    TALA_RETURN_IF_ERROR(writer.Write(result));
    Tally(result, summary, acc);
    if (options.progress) options.progress(summary.rows_scored, to_do);
  }
  Finish(acc, summary);
  return OkStatus();
}

}  // namespace

Result<RunSummary> Evaluate(const EvalOptions& options, RunSummary* partial) {
  RunSummary summary;
  std::string spooled;
  Status status = Run(options, summary, &spooled);
  if (!spooled.empty()) std::remove(spooled.c_str());
  if (partial != nullptr) *partial = summary;
  if (!status.ok()) return status;
  return summary;
}

}  // namespace tala
