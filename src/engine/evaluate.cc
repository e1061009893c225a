#include "tala/evaluate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include "core/hash.h"
#include "core/redact.h"
#include "engine/conversation_turns.h"
#include "engine/estimate_from.h"
#include "engine/llm_setup.h"
#include "engine/row_scorer.h"
#include "engine/run_tally.h"
#include "engine/sequential_run.h"
#include "engine/shard_files.h"
#include "engine/threaded_rows.h"
#include "fs/file_digest.h"
#include "fs/file_lock.h"
#include "fs/output_paths.h"
#include "io/dataset_validation.h"
#include "io/readers/dataset_reader.h"
#include "io/readers/labels_reader.h"
#include "io/readers/results_reader.h"
#include "io/reports/console_summary.h"
#include "io/writers/results_jsonl_writer.h"
#include "io/writers/run_records.h"
#include "judges/llm/prompts.h"
#include "judges/offline/offline_judge.h"
#include "judges/registry.h"
#include "judges/task_plan.h"
#include "metrics/nv_ratings.h"
#include "metrics/registry.h"

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
  // Rows with an answer and chunks but no reference: their retrieval is judged only by
  // context_relevance, which the offline judge then scores by default (issue 57, N16).
  int64_t unreferenced = 0;
  // Conversations whose ai messages carry their own passages: scored turn by turn by default;
  // whether some turn carries a reference, and some has passages and none.
  int64_t conversations = 0;
  bool turn_references = false;
  bool turn_unreferenced = false;
  std::vector<std::string> first_row_extras;  // the first row's unknown fields (for a hint)
  // --resume: each row's InputDigest by id, to tell kept rows that still stand from stale ones.
  std::unordered_map<std::string, std::string> digests;
  std::vector<std::string> ids;  // --sequential: every valid row's id, for the rows left unjudged
};

Result<CheckPass> CheckRows(const std::string& path, const io::ReaderOptions& ro,
                            const EvalOptions& options, RunSummary& summary) {
  TALA_ASSIGN_OR_RETURN(auto reader, io::OpenDatasetShard(path, ro, options.shard));
  CheckPass pass;
  // Rows are paired by id (resume, compare, gate, merge), so an id given twice is an error.
  // Kept as a 64-bit hash of the id with its line: a few bytes a row at any size.
  std::unordered_map<uint64_t, int64_t> id_lines;
  while (auto row = reader->Next()) {
    ++pass.rows;
    if (row->has_value()) {
      const Sample& sample = **row;
      pass.fields |= sample.fields();
      const FieldSet f = sample.fields();
      if (Contains(f, Field::kResponse) && Contains(f, Field::kRetrievedContexts) &&
          !Contains(f, Field::kReference) && !Contains(f, Field::kReferenceContextIds)) {
        ++pass.unreferenced;
      }
      if (sample.has_turn_fields()) {
        ++pass.conversations;
        for (const Message& m : sample.messages) {
          if (m.type != Message::Type::kAi) continue;
          pass.turn_references = pass.turn_references || m.reference.has_value();
          pass.turn_unreferenced =
              pass.turn_unreferenced || (m.retrieved_contexts.has_value() && !m.reference);
        }
      }
      if (pass.rows == 1) {
        for (const auto& [name, raw] : sample.metadata) pass.first_row_extras.push_back(name);
      }
      auto [it, fresh] = id_lines.emplace(Sha256Prefix64(sample.id), sample.line);
      if (!fresh) {
        return DataError({options.dataset, sample.line, 0, "id"},
                         "\"" + sample.id + "\" is also the id of the row on line " +
                             std::to_string(it->second) +
                             "; ids pair rows across runs, so each must be unique");
      }
      if (options.resume) pass.digests.emplace(sample.id, InputDigest(sample));
      if (options.sequential.on) pass.ids.push_back(sample.id);
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

// Everything one run needs, set up once and shared by its repeats.
struct Run {
  const EvalOptions& options;
  std::string path;
  io::ReaderOptions reader_options;
  std::vector<std::unique_ptr<Metric>> metrics;
  std::shared_ptr<Judge> judge;                     // offline, replay or the caller's own
  std::vector<std::unique_ptr<Judge>> more_judges;  // --threads: one per thread after the first
  std::optional<LlmSetup> llm;                      // openai:... or anthropic:...
  std::set<std::string> kept_ids;                   // --resume: rows already in the results file
  std::string dataset_sha256;                       // of the file read
  int64_t to_do = 0;
  std::vector<int64_t> positions;     // a shard by hash: each written row's number in the dataset
  ShardFiles* shard_files = nullptr;  // a shard's: told where each row's line lies
  SequentialMonitor* sequential = nullptr;  // --sequential: fed each row; no row once decided
};

io::RunManifest MakeManifest(const Run& run, const std::string& judge) {
  io::RunManifest m;
  m.tala_version = TALA_VERSION;
  m.created = io::UtcNow();
  m.dataset = run.options.dataset;
  m.dataset_sha256 = run.dataset_sha256;
  m.judge = judge;
  if (judge == "offline") m.embeddings = judges::offline::EmbedderName();
  for (const auto& metric : run.metrics) m.metrics[metric->key()] = metric->info().version;
  if (run.llm) {
    m.embeddings = run.llm->embeddings_name;
    for (const auto& p : judges::llm::Prompts()) m.prompts[p.name] = p.version;
    const auto& chat = run.llm->backends.chat;
    const LlmOptions& o = run.options.llm;
    m.settings = {{"base_url", RedactUrl(chat.base_url)},
                  {"temperature", chat.send_temperature ? std::to_string(o.temperature) : "unset"},
                  {"seed", chat.seed ? std::to_string(*chat.seed) : "unset"},
                  {"max_tokens", std::to_string(o.max_tokens)},
                  {"batching", o.batching},
                  {"questions", std::to_string(o.questions)},
                  {"structured_output", o.structured_output ? "true" : "false"}};
    // Recorded only when not the separate calls, so runs made before layouts existed (or with
    // --layout separate) compare with each other.
    if (o.layout != "separate") m.settings.emplace_back("layout", o.layout);
    // Which labelled examples a row is shown depends on how nearness is read.
    if (run.llm->runtime.calls.examples) {
      m.settings.emplace_back("examples_nearness", run.llm->runtime.calls.examples->nearness());
    }
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
  // The offline judge with and without its sentence encoder (an older file has no field).
  if (!was.embeddings.empty() && !now.embeddings.empty() && was.embeddings != now.embeddings) {
    return refuse("embeddings " + was.embeddings + ", not " + now.embeddings);
  }
  return OkStatus();
}

// --resume over a results file of another dataset would mix two runs under one manifest. An
// edited dataset (same ids) is fine: its changed rows are scored again.
Status CheckSameDataset(const io::ResultsFile& kept, const CheckPass& pass,
                        const std::string& now_sha256, const EvalOptions& options) {
  if (!kept.manifest || kept.manifest->dataset_sha256.empty() ||
      kept.manifest->dataset_sha256 == now_sha256) {
    return OkStatus();
  }
  int64_t absent = 0;
  for (const io::ResultRow& row : kept.rows) absent += pass.digests.count(row.id) == 0;
  if (absent == 0) return OkStatus();
  return InvalidArgument("--resume: " + options.out + " was made from another dataset (" +
                         std::to_string(absent) + " of its " + std::to_string(kept.rows.size()) +
                         " rows are not in " + options.dataset +
                         "); write to a new -o file, or pass --overwrite to start again");
}

// An existing results file is replaced freely when re-making it costs nothing (offline or
// replay verdicts); one that holds an LLM judge's verdicts, or is not a results file at all,
// only with --overwrite.
Status CheckOverwrite(const EvalOptions& options) {
  if (options.out == "-" || options.resume || options.overwrite || options.dry_run) {
    return OkStatus();
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(options.out, ec) ||
      std::filesystem::file_size(options.out, ec) == 0) {
    return OkStatus();
  }
  std::FILE* f = std::fopen(options.out.c_str(), "rb");
  if (f == nullptr) return OkStatus();  // opening it for writing will say what is wrong
  std::string head(4096, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), f));
  std::fclose(f);
  const std::string marker = std::string("{\"") + io::kManifestKey + "\"";
  if (head.rfind(marker, 0) != 0) {
    return InvalidArgument(
        options.out +
        " exists and is not a tala results file; pass --overwrite to replace it, "
        "or choose another -o path");
  }
  std::string judge;
  size_t at = head.find("\"judge\":\"");
  if (at != std::string::npos) {
    at += 9;
    judge = head.substr(at, head.find('"', at) - at);
  }
  if (IsLlmJudge(judge) && !options.shard.active()) {
    return InvalidArgument(options.out + " holds verdicts of " + judge +
                           " (paid for); continue that run with --resume, pass --overwrite to "
                           "replace it, or choose another -o path");
  }
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
    // A conversation's turns go out one by one, as rows do (conversation_turns.h).
    if (!turns_.empty()) {
      std::unique_ptr<Sample> turn = std::move(turns_.front());
      turns_.erase(turns_.begin());
      return turn;
    }
    // --sequential: once every gate is decided no new row is judged (rows in flight finish).
    if (run_.sequential != nullptr && run_.sequential->Decided()) return std::unique_ptr<Sample>();
    while (auto row = reader_->Next()) {
      if (!row->has_value()) {
        if (row->error().code() != ErrorCode::kDataError) return row->error();
        ++summary_.rows_skipped;
        continue;
      }
      if (run_.kept_ids.count((*row)->id)) continue;
      if (positions_ != nullptr) positions_->push_back(reader_->position());
      auto sample = std::make_unique<Sample>(std::move(**row));
      if (!by_turns_ || !sample->is_multi_turn()) return sample;
      turns_ = SamplesToJudge(std::move(sample), by_turns_);
      return Next();
    }
    return std::unique_ptr<Sample>();
  }

 private:
  std::unique_ptr<io::DatasetReader> reader_;
  const Run& run_;
  RunSummary& summary_;
  std::vector<int64_t>* positions_;
  bool by_turns_ = ScoresTurns(run_.metrics);
  std::vector<std::unique_ptr<Sample>> turns_;
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
  ConversationAssembler conversations(run.metrics);
  std::function<Status(io::RowResult&)> finish_result;
  auto finish_row = [&](const Sample& sample, const Result<Verdicts>& verdicts) -> Status {
    io::RowResult result = scorer.ScoreWith(sample, verdicts);
    // A turn waits for the rest of its conversation, which is written as one row.
    if (sample.turn > 0) return conversations.Add(result, finish_result);
    return finish_result(result);
  };
  finish_result = [&](io::RowResult& result) -> Status {
    tally.Diagnose(result);
    if (writer != nullptr) {
      const int64_t before = writer->size();
      TALA_RETURN_IF_ERROR(writer->Write(result));
      if (run.shard_files) run.shard_files->RowWritten(writer->size() - before);
    }
    tally.Add(result);
    if (run.sequential != nullptr && writer != nullptr) run.sequential->Add(result);
    return OkStatus();
  };
  if (!run.llm && !run.more_judges.empty()) {
    std::vector<RowScorer> scorers;
    scorers.reserve(run.more_judges.size() + 1);
    scorers.emplace_back(run.metrics, run.judge.get(), summary.judge);
    for (const auto& judge : run.more_judges)
      scorers.emplace_back(run.metrics, judge.get(), summary.judge);
    std::vector<RowScorer*> threads;
    for (RowScorer& s : scorers) threads.push_back(&s);
    auto finish = [&](const Sample& sample, const Result<Verdicts>& verdicts) -> Status {
      TALA_RETURN_IF_ERROR(finish_row(sample, verdicts));
      Report(run, summary, nullptr);
      return OkStatus();
    };
    // --sequential looks after each batch: small batches stop closer to the decision.
    const size_t batch = run.sequential != nullptr ? 8 * threads.size() : 0;
    return JudgeOnThreads(
        threads, [&] { return rows.Next(); }, finish, run.options.stop, batch);
  }
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
  if (int64_t n = runner->accounting().usage_clamped; n > 0) {
    summary.warnings.push_back(
        "the judge server reported impossible token usage in " + std::to_string(n) +
        " replies (negative, or far beyond what was sent); it was clamped, so cost and token "
        "figures are bounded estimates for those calls");
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
  // Rows as the file holds them: a conversation judged turn by turn is one row of many turns.
  int64_t n = 0, conversations = 0, turns = 0;
  while (true) {
    TALA_ASSIGN_OR_RETURN(auto sample, rows.Next());
    if (!sample) break;
    EstimateRow(*sample, judges::PlanRow(*sample, run.metrics), *runner, *run.llm, estimate);
    if (sample->turn <= 1) ++n;
    if (sample->turn == 1) ++conversations;
    if (sample->turn > 0) ++turns;
  }
  summary.accounting = ToRunAccounting(estimate, *run.llm, run.metrics);
  summary.accounting.estimated = true;
  summary.accounting.rows = n;
  if (conversations > 0) {
    summary.notes.push_back(std::to_string(conversations) + " of the rows are conversations, " +
                            "judged turn by turn: " + std::to_string(turns) +
                            " turns, each judged as a row is (calls/row counts a "
                            "conversation's calls)");
  }
  if (auto note = ProviderCacheNote(estimate, *run.llm)) summary.notes.push_back(*note);
  if (auto note = LayoutNote(estimate, *run.llm)) summary.notes.push_back(*note);
  return OkStatus();
}

// Adds `more` to `into`, tally by tally (a repeat's calls to the run's).
void AddAccounting(RunAccounting& into, const RunAccounting& more) {
  if (!more.used) return;
  into.used = true;
  into.total += more.total;
  for (auto lists :
       {std::pair{&into.by_prompt, &more.by_prompt}, std::pair{&into.by_metric, &more.by_metric}}) {
    for (const auto& [name, tally] : *lists.second) {
      auto it = std::find_if(lists.first->begin(), lists.first->end(),
                             [&](const auto& e) { return e.first == name; });
      if (it == lists.first->end()) {
        lists.first->emplace_back(name, tally);
      } else {
        it->second += tally;
      }
    }
  }
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
    RunAccounting spent;
    TALA_RETURN_IF_ERROR(ScorePass(run, again, tally, nullptr, /*read_cache=*/false, &spent));
    // Every repeat's calls are paid for: the totals count them all (F30).
    AddAccounting(summary.accounting, spent);
    for (std::string& w : again.warnings) summary.warnings.push_back(std::move(w));
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
  if (run.llm) {
    summary.notes.push_back("repeats bypassed the judge cache; calls, tokens and cost count all " +
                            std::to_string(run.options.repeats) + " repeats");
  }
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
  if (options.sequential.on) {
    const char* clash = options.resume            ? "--resume"
                        : options.shard.active()  ? "--shard"
                        : options.repeats > 1     ? "--repeats"
                        : !options.labels.empty() ? "--labels"
                        : options.out == "-"      ? "-o - (the rows left unjudged are listed "
                                                    "beside the results file)"
                                                  : nullptr;
    if (clash != nullptr)
      return InvalidArgument(std::string("--sequential does not go with ") + clash);
    if (!(options.sequential.alpha > 0 && options.sequential.alpha < 1)) {
      return InvalidArgument("--alpha must be in (0, 1)");
    }
  }
  if (options.threads < 0) return InvalidArgument("--threads must be 0 (one per core) or more");
  TALA_RETURN_IF_ERROR(CheckShardOptions(options));
  if (!options.dry_run) {
    std::vector<fs::NamedPath> outputs = {{"-o", options.out}};
    if (options.shard.active()) {
      TALA_RETURN_IF_ERROR(fs::CheckRenamedIntoPlace({"-o", options.out}));
      outputs.push_back({"the shard state", ShardStatePath(options.out)});
      outputs.push_back({"the shard's rows", ShardRowsPath(options.out)});
    }
    const std::string cache = IsLlmJudge(options.judge) ? options.llm.cache : "";
    TALA_RETURN_IF_ERROR(fs::CheckOutputsDistinct({{"DATA", run.path},
                                                   {"--labels", options.labels},
                                                   {"--cache", cache == "off" ? "" : cache}},
                                                  outputs));
    // Another process writing the file is the first thing to say (the lock is taken for good
    // when the writer opens it; this only asks).
    if (options.out != "-" && std::filesystem::exists(options.out)) {
      auto probe = fs::FileLock::Acquire(options.out, /*create=*/false);
      if (!probe && probe.error().code() == ErrorCode::kInvalidArgument) return probe.error();
    }
    TALA_RETURN_IF_ERROR(CheckOverwrite(options));
  }
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
    specs = metrics::DefaultSpecs(pass.fields);
    // What tells a retriever miss from an ungrounded generator on a row without a reference
    // (analysis::Diagnose). Free with the offline judge; LLM judges take it by --metrics, as
    // their two extra calls a row are the user's to pay.
    const bool offline = !options.custom_judge && options.judge == "offline";
    if (pass.conversations > 0) {
      // Only conversations: their turns' metrics alone (a row metric would score the last
      // answer twice); beside single rows, both.
      if (pass.conversations == pass.rows - pass.bad) specs.clear();
      std::vector<metrics::MetricSpec> turns = metrics::ConversationDefaultSpecs(
          pass.turn_references, offline && pass.turn_unreferenced);
      specs.insert(specs.begin(), turns.begin(), turns.end());
    }
    const std::string& relevance = metrics::ContextRelevanceInfo().name;
    const bool listed = std::any_of(specs.begin(), specs.end(), [&](const metrics::MetricSpec& m) {
      return m.name == relevance;
    });
    if (offline && pass.unreferenced > 0 && !specs.empty() && !listed) {
      specs.push_back({relevance, {}});
    }
    for (const UserMetricDef& def : options.user_metrics) specs.push_back({def.name, {}});
    if (specs.empty()) {
      return InvalidArgument(
          "no metric can be computed from the dataset's fields (" +
          (pass.fields ? FieldSetNames(pass.fields) : std::string("none tala knows")) +
          "); see `tala metrics`" + io::SeparatorHint(pass.first_row_extras));
    }
  } else {
    TALA_ASSIGN_OR_RETURN(specs, metrics::ParseMetricSpecs(options.metrics));
    TALA_ASSIGN_OR_RETURN(specs, metrics::ExpandGroups(specs, pass.fields, options.user_metrics));
  }
  metrics::ApplyRubric(specs, options.rubrics);
  TALA_ASSIGN_OR_RETURN(
      run.metrics,
      metrics::CreateMetrics(metrics::ExpandCutoffs(specs, options.ks), options.user_metrics));
  if (options.custom_judge) {
    run.judge = options.custom_judge;
    summary.judge = run.judge->name();
  } else if (IsLlmJudge(options.judge)) {
    // A dry run estimates the cost before anyone has a key (N5): nothing is sent.
    LlmOptions llm = options.llm;
    llm.estimate_only = options.dry_run;
    TALA_ASSIGN_OR_RETURN(run.llm, SetUpLlm(options.judge, llm, &summary.warnings));
    summary.judge = run.llm->judge_name;
  } else {
    TALA_ASSIGN_OR_RETURN(run.judge, judges::CreateJudge(options.judge, options.offline_blend));
    summary.judge = run.judge->name();
    // The offline judge's work is CPU time: more threads, each with its own judge (the rows'
    // scores do not depend on which judge read them, as tala merge relies on too).
    if (summary.judge == "offline" && !options.dry_run) {
      for (int t = 1; t < ResolveThreads(options.threads); ++t) {
        TALA_ASSIGN_OR_RETURN(auto judge,
                              judges::CreateJudge(options.judge, options.offline_blend));
        run.more_judges.push_back(std::move(judge));
      }
    }
  }
  if (summary.judge == "offline") {
    std::string why;
    if (judges::offline::EmbedderName(&why) == "hashed") {
      summary.warnings.push_back(
          "the offline judge's sentence encoder is missing (" + why +
          "): response relevancy reads words only, context relevance is undefined and semantic "
          "similarity uses hashed embeddings; `tala compare` will not mix these results with "
          "runs that had it");
    }
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
  TALA_ASSIGN_OR_RETURN(run.dataset_sha256, fs::FileSha256(run.path));
  // --sequential: the rows in a seeded random order (the sequence's guarantee assumes it), read
  // from a shuffled copy; the manifest still names the dataset and its digest.
  std::unique_ptr<SequentialMonitor> monitor;
  std::optional<fs::ScratchFile> shuffled;  // removed when the run ends
  if (options.sequential.on) {
    TALA_ASSIGN_OR_RETURN(monitor, SequentialMonitor::Create(options.sequential, summary.metrics));
    TALA_ASSIGN_OR_RETURN(shuffled,
                          ShuffledCopy(run.path, options.format, options.sequential.seed));
    run.path = shuffled->path();
    run.sequential = monitor.get();
  }

  analysis::DiagnosisRule rule{options.diagnosis_threshold, options.diagnosis_thresholds};
  RunTally tally(summary, rule);
  io::RunManifest manifest = MakeManifest(run, summary.judge);
  if (!options.judge_profile.empty()) {
    manifest.settings.push_back({"judge_profile", options.judge_profile});
  }
  if (options.sequential.on) {
    manifest.settings.push_back(
        {"sequential",
         fmt::format("alpha={} seed={}", options.sequential.alpha, options.sequential.seed)});
  }
  bool append = false;
  io::JsonLinesTail tail;
  if (options.resume && options.out != "-" && std::filesystem::exists(options.out)) {
    TALA_ASSIGN_OR_RETURN(io::ResultsFile kept,
                          io::ReadResults(options.out, io::EmptyResults::kAllowed));
    TALA_RETURN_IF_ERROR(CheckResumable(kept, manifest, options.out));
    TALA_RETURN_IF_ERROR(CheckSameDataset(kept, pass, run.dataset_sha256, options));
    if (std::string cut = io::CutOffNotice(kept, options.out); !cut.empty()) {
      summary.warnings.push_back(cut + "; it is scored again");
    }
    // The kept rows as the tally counts them, read once for the run's metrics.
    KeptRows resumed(MetricKeys(summary.metrics));
    for (const io::ResultRow& row : kept.rows) {
      auto now = pass.digests.find(row.id);
      if (now == pass.digests.end()) continue;  // not in this dataset (or this shard)
      // A row whose judge calls failed is scored again (it was never really scored), and so is
      // a row whose inputs changed since; its new line supersedes the old one.
      if (row.has_failures()) {
        ++summary.rows_retried;
        continue;
      }
      if (!row.input_digest.empty() && row.input_digest != now->second) {
        ++summary.rows_changed;
        continue;
      }
      if (run.kept_ids.insert(row.id).second) {
        resumed.Add(row);
        tally.AddKept(resumed, resumed.size() - 1, RunTally::Kept::kResumed);
      }
    }
    run.to_do -= static_cast<int64_t>(run.kept_ids.size());
    if (summary.rows_retried > 0) {
      summary.notes.push_back("--resume: " + std::to_string(summary.rows_retried) +
                              " rows whose judge calls had failed were scored again");
    }
    if (summary.rows_changed > 0) {
      summary.notes.push_back("--resume: " + std::to_string(summary.rows_changed) +
                              " rows whose inputs changed since they were scored were scored "
                              "again");
    }
    tail = kept.tail;
    append = true;
  }
  // A shard is written whole or not at all: scored into a scratch file, renamed when done.
  ShardFiles shard_files(options);
  shard_files.Begin(summary.metrics);
  TALA_ASSIGN_OR_RETURN(
      auto writer,
      io::ResultsJsonlWriter::Open(
          shard_files.writing(),
          append ? io::ResultsJsonlWriter::Mode::kAppend : io::ResultsJsonlWriter::Mode::kTruncate,
          append ? static_cast<int64_t>(tail.complete_bytes) : -1, tail.needs_newline));
  summary.results_path = options.out;
  // A resumed file of an edited dataset gets the new manifest after the old one (the last
  // manifest describes the file).
  if (!append || summary.rows_changed > 0) {
    TALA_RETURN_IF_ERROR(writer.WriteLine(io::FormatManifestLine(manifest)));
  }
  if (options.shard.active()) {
    shard_files.RowsBegin(static_cast<uint64_t>(writer.size()));
    tally.set_journal(&shard_files.rows());
    run.shard_files = &shard_files;
  }
  Status status = ScorePass(run, summary, tally, &writer, /*read_cache=*/true, &summary.accounting);
  tally.Finish();
  if (monitor && status.ok()) {
    TALA_ASSIGN_OR_RETURN(summary.sequential, monitor->Finish(pass.ids, options.out));
    summary.notes.push_back(SequentialNote(summary.sequential));
  }
  // Repeats before the run record, so that it counts every call they made too.
  if (status.ok() && options.repeats > 1) status = Repeat(run, summary);
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
  TALA_RETURN_IF_ERROR(status);
  if (options.shard.active())
    TALA_RETURN_IF_ERROR(shard_files.Finish(summary, run.path, run.dataset_sha256, run.positions));
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
    if (Status range = io::CheckLabelRange(*labels, m.key, *results, options.labels); !range.ok()) {
      summary.warnings.push_back("labels: " + range.ToString());
      continue;
    }
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

std::string FormatSummary(const RunSummary& summary, bool brief) {
  return io::FormatSummaryTable(summary, brief);
}
std::string FormatSummaryHtml(const RunSummary& summary) { return io::FormatSummaryHtml(summary); }

}  // namespace tala
