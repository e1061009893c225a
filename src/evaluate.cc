#include "tala/evaluate.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include "estimate_from.h"
#include "io/readers/dataset_reader.h"
#include "io/readers/labels_reader.h"
#include "io/readers/results_reader.h"
#include "io/reports/console_summary.h"
#include "io/writers/results_jsonl_writer.h"
#include "io/writers/run_records.h"
#include "judges/llm/prompts.h"
#include "judges/registry.h"
#include "judges/task_plan.h"
#include "llm_setup.h"
#include "metrics/registry.h"
#include "row_scorer.h"
#include "run_tally.h"
#include "shard_files.h"

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
  TALA_ASSIGN_OR_RETURN(auto reader, io::OpenDatasetShard(path, ro, options.shard));
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
  // A shard may be empty (more shards than rows); the merge checks that the dataset was not.
  if (pass.rows == 0 && !options.shard.active()) {
    return DataError({options.dataset, 0, 0, ""}, "the dataset holds no rows");
  }
  return pass;
}

std::vector<metrics::MetricSpec> DefaultSpecs(FieldSet fields) {
  std::vector<metrics::MetricSpec> specs;
  for (const auto& entry : metrics::MetricRegistry()) {
    FieldSet need = entry.info().required_fields;
    if (entry.info().by_default && (fields & need) == need)
      specs.push_back({entry.info().name, {}});
  }
  return specs;
}

// Everything one run needs, set up once and shared by its repeats.
struct Run {
  const EvalOptions& options;
  std::string path;
  io::ReaderOptions reader_options;
  std::vector<std::unique_ptr<Metric>> metrics;
  std::shared_ptr<Judge> judge;    // offline, replay or the caller's own
  std::optional<LlmSetup> llm;     // openai:... or anthropic:...
  std::set<std::string> kept_ids;  // --resume: rows already in the results file
  int64_t to_do = 0;
  std::vector<int64_t> positions;  // a shard by hash: each written row's number in the dataset
};

io::RunManifest MakeManifest(const Run& run, const std::string& judge) {
  io::RunManifest m;
  m.tala_version = TALA_VERSION;
  m.created = io::UtcNow();
  m.dataset = run.options.dataset;
  m.judge = judge;
  for (const auto& metric : run.metrics) m.metrics[metric->key()] = metric->info().version;
  if (run.llm) {
    m.embeddings = run.llm->embeddings_name;
    for (const auto& p : judges::llm::Prompts()) m.prompts[p.name] = p.version;
    const auto& chat = run.llm->backends.chat;
    const LlmOptions& o = run.options.llm;
    m.settings = {{"base_url", chat.base_url},
                  {"temperature", chat.send_temperature ? std::to_string(o.temperature) : "unset"},
                  {"seed", chat.seed ? std::to_string(*chat.seed) : "unset"},
                  {"max_tokens", std::to_string(o.max_tokens)},
                  {"batching", o.batching},
                  {"questions", std::to_string(o.questions)},
                  {"structured_output", o.structured_output ? "true" : "false"}};
  }
  return m;
}

// A resumed file must come from the same judge, metrics and prompts, or its rows would mix.
Status CheckResumable(const io::ResultsFile& kept, const io::RunManifest& now,
                      const std::string& out) {
  if (!kept.manifest) return OkStatus();
  const io::RunManifest& was = *kept.manifest;
  auto refuse = [&](const std::string& what) {
    return InvalidArgument("--resume: " + out + " was made with " + what +
                           "; resume with the same settings, or write to a new -o file");
  };
  if (was.judge != now.judge) return refuse("judge " + was.judge + ", not " + now.judge);
  if (was.metrics != now.metrics) return refuse("other metrics (or metric versions)");
  if (was.prompts != now.prompts) return refuse("other prompt versions");
  return OkStatus();
}

// The dataset's valid rows, one at a time, without those already kept.
class RowSource {
 public:
  // `positions`, when given, gets each row's number in the dataset.
  RowSource(std::unique_ptr<io::DatasetReader> reader, const Run& run, RunSummary& summary,
            std::vector<int64_t>* positions = nullptr)
      : reader_(std::move(reader)), run_(run), summary_(summary), positions_(positions) {}
  Result<std::unique_ptr<Sample>> Next() {
    while (auto row = reader_->Next()) {
      if (!row->has_value()) {
        if (row->error().code() != ErrorCode::kDataError) return row->error();
        ++summary_.rows_skipped;
        continue;
      }
      if (run_.kept_ids.count((*row)->id)) continue;
      if (positions_ != nullptr) positions_->push_back(reader_->position());
      return std::make_unique<Sample>(std::move(**row));
    }
    return std::unique_ptr<Sample>();
  }

 private:
  std::unique_ptr<io::DatasetReader> reader_;
  const Run& run_;
  RunSummary& summary_;
  std::vector<int64_t>* positions_;
};

void Report(const Run& run, const RunSummary& s, const Progress* llm) {
  if (!run.options.progress) return;
  Progress p = llm ? *llm : Progress{};
  p.rows_done = s.rows_scored - s.rows_resumed;
  p.rows_total = run.to_do;
  run.options.progress(p);
}

// One pass over the dataset. `writer` is null for --repeats passes.
Status ScorePass(Run& run, RunSummary& summary, RunTally& tally, io::ResultsJsonlWriter* writer,
                 bool read_cache, RunAccounting* accounting) {
  TALA_ASSIGN_OR_RETURN(auto reader,
                        io::OpenDatasetShard(run.path, run.reader_options, run.options.shard));
  bool by_hash = run.options.shard.active() && run.options.shard.by == ShardBy::kHash;
  RowSource rows(std::move(reader), run, summary,
                 writer != nullptr && by_hash ? &run.positions : nullptr);
  RowScorer scorer(run.metrics, run.judge.get(), summary.judge);
  auto finish_row = [&](const Sample& sample, const Result<Verdicts>& verdicts) -> Status {
    io::RowResult result = scorer.ScoreWith(sample, verdicts);
    tally.Diagnose(result);
    if (writer != nullptr) TALA_RETURN_IF_ERROR(writer->Write(result));
    tally.Add(result);
    return OkStatus();
  };
  if (!run.llm) {
    while (true) {
      if (run.options.stop && run.options.stop->load()) {
        return {ErrorCode::kCancelled, "stopped by the user"};
      }
      TALA_ASSIGN_OR_RETURN(auto sample, rows.Next());
      if (!sample) return OkStatus();
      Result<Verdicts> verdicts = scorer.Ask(*sample);
      // A judge stopped mid-row (a caller's judge that raised) leaves the row unwritten, so a
      // resumed run scores it.
      if (!verdicts && verdicts.error().code() == ErrorCode::kCancelled) return verdicts.error();
      TALA_RETURN_IF_ERROR(finish_row(*sample, verdicts));
      Report(run, summary, nullptr);
    }
  }
  runtime::RuntimeOptions options = run.llm->runtime;
  options.read_cache = read_cache;
  options.write_cache = read_cache;
  TALA_ASSIGN_OR_RETURN(
      auto runner, runtime::JudgeRunner::Create(run.llm->backends, options, run.llm->cache.get(),
                                                runtime::SystemClock()));
  // Rows come back in completion order; they are written in input order (so a rerun gives an
  // identical file), held back at most kReorderWindow rows behind a slow one.
  constexpr size_t kReorderWindow = 1024;
  std::unordered_map<const Sample*, int64_t> order;
  std::map<int64_t, std::pair<std::unique_ptr<Sample>, Verdicts>> held;
  int64_t issued = 0, next_to_write = 0;
  Status read_error;
  auto next = [&]() -> std::unique_ptr<Sample> {
    auto sample = rows.Next();
    if (!sample) {
      read_error = sample.error();
      return nullptr;
    }
    if (*sample) order[sample->get()] = issued++;
    return std::move(*sample);
  };
  auto write_held = [&](bool all) -> Status {
    while (!held.empty() &&
           (all || held.begin()->first <= next_to_write || held.size() > kReorderWindow)) {
      auto it = held.begin();
      next_to_write = std::max(next_to_write, it->first + 1);
      Status s = finish_row(*it->second.first, it->second.second);
      held.erase(it);
      TALA_RETURN_IF_ERROR(s);
    }
    return OkStatus();
  };
  auto plan = [&](const Sample& s) { return judges::PlanRow(s, run.metrics); };
  auto done = [&](std::unique_ptr<Sample> s, Result<Verdicts> v) -> Status {
    auto it = order.find(s.get());
    int64_t seq = it->second;
    order.erase(it);
    held.emplace(seq, std::make_pair(std::move(s), std::move(*v)));
    return write_held(false);
  };
  auto tick = [&](const runtime::RunnerProgress& p) { Report(run, summary, &p); };
  Status status = runner->Run(next, plan, done, run.options.stop, tick);
  // Rows finished behind one that never will (Ctrl-C, a fatal error) are kept all the same.
  Status flushed = write_held(true);
  if (status.ok()) status = flushed;
  if (accounting != nullptr) {
    *accounting = ToRunAccounting(runner->accounting(), *run.llm, run.metrics);
    accounting->rows = summary.rows_scored - summary.rows_resumed;
  }
  if (!read_error.ok()) return read_error;
  return status;
}

Status DryRun(Run& run, RunSummary& summary) {
  summary.accounting.estimated = true;
  if (!run.llm) {
    summary.notes.push_back("the " + summary.judge +
                            " judge makes no model calls: nothing to estimate");
    return OkStatus();
  }
  TALA_ASSIGN_OR_RETURN(auto runner,
                        runtime::JudgeRunner::Create(run.llm->backends, run.llm->runtime,
                                                     run.llm->cache.get(), runtime::SystemClock()));
  TALA_ASSIGN_OR_RETURN(auto reader,
                        io::OpenDatasetShard(run.path, run.reader_options, run.options.shard));
  RowSource rows(std::move(reader), run, summary);
  runtime::Accounting estimate;
  int64_t n = 0;
  while (true) {
    TALA_ASSIGN_OR_RETURN(auto sample, rows.Next());
    if (!sample) break;
    EstimateRow(*sample, judges::PlanRow(*sample, run.metrics), *runner, *run.llm, estimate);
    ++n;
  }
  summary.accounting = ToRunAccounting(estimate, *run.llm, run.metrics);
  summary.accounting.estimated = true;
  summary.accounting.rows = n;
  return OkStatus();
}

// --repeats: the spread of each metric's mean over R scorings is the judge's own noise.
Status Repeat(Run& run, RunSummary& summary) {
  std::vector<std::vector<double>> means(summary.metrics.size());
  for (size_t i = 0; i < summary.metrics.size(); ++i) {
    if (summary.metrics[i].scored > 0) means[i].push_back(summary.metrics[i].mean());
  }
  for (int r = 1; r < run.options.repeats; ++r) {
    RunSummary again;
    again.judge = summary.judge;
    for (const auto& m : summary.metrics) again.metrics.push_back({m.key, m.direction});
    RunTally tally(again, {});
    TALA_RETURN_IF_ERROR(ScorePass(run, again, tally, nullptr, /*read_cache=*/false, nullptr));
    for (size_t i = 0; i < again.metrics.size(); ++i) {
      if (again.metrics[i].scored > 0) means[i].push_back(again.metrics[i].mean());
    }
  }
  for (size_t i = 0; i < summary.metrics.size(); ++i) {
    MetricSummary& m = summary.metrics[i];
    m.repeat_means = means[i];
    if (means[i].size() < 2) continue;
    double mean = 0, ss = 0;
    for (double v : means[i]) mean += v;
    mean /= static_cast<double>(means[i].size());
    for (double v : means[i]) ss += (v - mean) * (v - mean);
    m.repeat_stddev = std::sqrt(ss / static_cast<double>(means[i].size() - 1));
    m.suggested_gate = m.direction == Direction::kHigherIsBetter ? mean - 2 * m.repeat_stddev
                                                                 : mean + 2 * m.repeat_stddev;
  }
  if (run.llm) summary.notes.push_back("repeats bypassed the judge cache");
  return OkStatus();
}

Status Evaluate(const EvalOptions& options, RunSummary& summary, std::string* spooled) {
  Run run{options};
  TALA_ASSIGN_OR_RETURN(run.reader_options.format, io::ParseDatasetFormat(options.format));
  run.path = options.dataset;
  if (run.path == "-") {
    if (run.reader_options.format == io::DatasetFormat::kAuto) {
      run.reader_options.format = io::DatasetFormat::kJsonl;
    }
    TALA_ASSIGN_OR_RETURN(run.path, SpoolStdin(spooled));
  }
  if (options.repeats < 1) return InvalidArgument("--repeats must be at least 1");
  TALA_RETURN_IF_ERROR(CheckShardOptions(options));
  ShardFiles::ClearOlder(options);
  TALA_ASSIGN_OR_RETURN(CheckPass pass, CheckRows(run.path, run.reader_options, options, summary));
  summary.rows_read = pass.rows;
  if (pass.bad > 0 && options.on_error == OnError::kFail) {
    return DataError({options.dataset, 0, 0, ""},
                     std::to_string(pass.bad) + " of " + std::to_string(pass.rows) +
                         " rows are invalid; fix them or pass --on-error skip");
  }
  std::vector<metrics::MetricSpec> specs;
  if (options.metrics.empty()) {
    specs = DefaultSpecs(pass.fields);
    for (const UserMetricDef& def : options.user_metrics) specs.push_back({def.name, {}});
    if (specs.empty()) {
      return InvalidArgument("no metric can be computed from the dataset's fields (" +
                             FieldSetNames(pass.fields) + "); see `tala metrics`");
    }
  } else {
    TALA_ASSIGN_OR_RETURN(specs, metrics::ParseMetricSpecs(options.metrics));
  }
  metrics::ApplyRubric(specs, options.rubrics);
  TALA_ASSIGN_OR_RETURN(
      run.metrics,
      metrics::CreateMetrics(metrics::ExpandCutoffs(specs, options.ks), options.user_metrics));
  if (options.custom_judge) {
    run.judge = options.custom_judge;
    summary.judge = run.judge->name();
  } else if (IsLlmJudge(options.judge)) {
    TALA_ASSIGN_OR_RETURN(run.llm, SetUpLlm(options.judge, options.llm, &summary.warnings));
    summary.judge = run.llm->judge_name;
  } else {
    TALA_ASSIGN_OR_RETURN(run.judge, judges::CreateJudge(options.judge));
    summary.judge = run.judge->name();
  }
  for (const auto& m : run.metrics) {
    summary.metrics.push_back({m->key(), m->info().direction});
    // Where the offline judge answers a metric another way than its definition, say how.
    if (summary.judge == "offline" && !m->info().offline_note.empty()) {
      summary.notes.push_back(m->key() + " " + m->info().offline_note);
    }
  }
  run.to_do = pass.rows - pass.bad;
  if (options.dry_run) return DryRun(run, summary);

  analysis::DiagnosisRule rule{options.diagnosis_threshold, options.diagnosis_thresholds};
  RunTally tally(summary, rule);
  io::RunManifest manifest = MakeManifest(run, summary.judge);
  bool append = false;
  if (options.resume && options.out != "-" && std::filesystem::exists(options.out)) {
    TALA_ASSIGN_OR_RETURN(io::ResultsFile kept,
                          io::ReadResults(options.out, io::EmptyResults::kAllowed));
    TALA_RETURN_IF_ERROR(CheckResumable(kept, manifest, options.out));
    for (const io::ResultRow& row : kept.rows) {
      if (run.kept_ids.insert(row.id).second) tally.AddKept(row);
    }
    run.to_do -= static_cast<int64_t>(run.kept_ids.size());
    append = true;
  }
  // A shard is written whole or not at all: scored into a scratch file, renamed when done.
  ShardFiles shard_files(options);
  shard_files.Begin();
  TALA_ASSIGN_OR_RETURN(
      auto writer, io::ResultsJsonlWriter::Open(shard_files.writing(),
                                                append ? io::ResultsJsonlWriter::Mode::kAppend
                                                       : io::ResultsJsonlWriter::Mode::kTruncate));
  summary.results_path = options.out;
  if (!append) TALA_RETURN_IF_ERROR(writer.WriteLine(io::FormatManifestLine(manifest)));
  Status status = ScorePass(run, summary, tally, &writer, /*read_cache=*/true, &summary.accounting);
  if (run.llm) {
    std::string how = status.ok()                              ? "complete"
                      : status.code() == ErrorCode::kCancelled ? "cancelled"
                                                               : status.ToString();
    Status written =
        writer.WriteLine(io::FormatRunRecordLine(summary.accounting, how, io::UtcNow()));
    if (status.ok()) status = written;
    if (run.llm->cache && !run.llm->cache->last_error().empty()) {
      summary.warnings.push_back(run.llm->cache->last_error());
    }
  }
  tally.Finish();
  TALA_RETURN_IF_ERROR(status);
  if (options.shard.active())
    TALA_RETURN_IF_ERROR(shard_files.Finish(summary, run.path, run.positions));
  if (options.repeats > 1) TALA_RETURN_IF_ERROR(Repeat(run, summary));
  return OkStatus();
}

}  // namespace

namespace {
// --labels: the prediction-powered estimate of each metric the labels carry. A problem with the
// labels is a warning: the scores themselves are fine.
void AddEstimates(const EvalOptions& options, RunSummary& summary) {
  if (options.out == "-") {
    summary.warnings.push_back("--labels needs a results file (-o FILE), not stdout");
    return;
  }
  auto labels = io::ReadLabels(options.labels);
  if (!labels) {
    summary.warnings.push_back("labels: " + labels.error().ToString());
    return;
  }
  std::set<std::string> labelled;
  for (const io::LabelRow& row : labels->rows) {
    for (const auto& [metric, value] : row.values) labelled.insert(metric);
  }
  if (labelled.empty()) return;
  // The results file just written, read once for every labelled metric.
  auto results = io::ReadResults(options.out);
  if (!results) {
    summary.warnings.push_back("labels: " + results.error().ToString());
    return;
  }
  for (const MetricSummary& m : summary.metrics) {
    if (!labelled.count(m.key)) continue;
    auto e = EstimateFrom(*results, *labels, m.key, /*allow_biased_labels=*/false);
    if (!e) {
      summary.warnings.push_back("estimate of " + m.key + ": " + e.error().message());
      continue;
    }
    summary.estimates.push_back({m.key, e->n_labelled, e->n_total, e->ppi_mean, e->ppi_low,
                                 e->ppi_high, e->judge_mean, e->human_mean});
    for (const std::string& note : e->notes) summary.notes.push_back(m.key + " estimate: " + note);
  }
}
}  // namespace

Result<RunSummary> Evaluate(const EvalOptions& options, RunSummary* partial) {
  RunSummary summary;
  std::string spooled;
  Status status = Evaluate(options, summary, &spooled);
  if (!spooled.empty()) std::remove(spooled.c_str());
  if (status.ok() && !options.labels.empty()) AddEstimates(options, summary);
  if (partial != nullptr) *partial = summary;
  if (!status.ok()) return status;
  return summary;
}

std::string FormatSummary(const RunSummary& summary) { return io::FormatSummaryTable(summary); }

}  // namespace tala
