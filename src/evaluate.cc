#include "tala/evaluate.h"

#include <unistd.h>

#include <cstdio>

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

void Tally(const io::RowResult& row, RunSummary& summary) {
  ++summary.rows_scored;
  if (!row.status.ok()) ++summary.rows_failed;
  for (size_t i = 0; i < row.scores.size(); ++i) {
    MetricSummary& m = summary.metrics[i];
    const io::RowScore& s = row.scores[i];
    if (s.value.value) {
      ++m.scored;
      m.sum += *s.value.value;
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
  while (auto row = reader->Next()) {
    if (!row->has_value()) {
      if (row->error().code() != ErrorCode::kDataError) return row->error();
      ++summary.rows_skipped;
      continue;
    }
    io::RowResult result = scorer.Score(**row);
    TALA_RETURN_IF_ERROR(writer.Write(result));
    Tally(result, summary);
    if (options.progress) options.progress(summary.rows_scored, to_do);
  }
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
