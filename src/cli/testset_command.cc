// tala testset: a golden set's candidates from the application's own logged questions and its
// documents (include/tala/testset.h), and `tala testset accept`, the reviewed ones into
// golden.jsonl.

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "cli/llm_flags.h"
#include "cli/progress_line.h"
#include "cli/stop_signals.h"
#include "fs/atomic_file.h"
#include "fs/output_paths.h"
#include "tala/serve.h"
#include "tala/testset.h"
#include "testset/documents.h"
#include "testset/remap.h"

namespace tala::cli {

namespace {

struct TestsetFlags {
  TestsetOptions options;
  std::string out = "candidates.jsonl";
  std::string report;  // --report: the HTML page
  bool json = false;
  bool no_progress = false;
  // accept
  std::string candidates, labels, golden = "golden.jsonl";
  // remap
  std::string remap_golden, remap_chunks, remap_out;
  size_t remap_chunk_chars = 0;  // 0: testset::kChunkChars
};

// A tala serve database (SQLite's file header), rather than a dataset file.
bool IsServeDatabase(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[16] = {0};
  in.read(head, sizeof head);
  return in.gcount() == 16 && std::string(head, 15) == "SQLite format 3";
}

// The rows a tala serve scored (its sample), as results lines: their questions, and which
// failed by their scores and diagnoses.
Result<std::vector<LoggedQuestion>> ServeQuestions(const std::string& db) {
  ServeOptions o;
  o.db = db;
  o.lock_db = false;  // reading beside a running tala serve is fine
  TALA_ASSIGN_OR_RETURN(auto service, Service::Open(o));
  RowQuery all;
  all.limit = 10000000;
  TALA_ASSIGN_OR_RETURN(std::vector<StoredRow> rows, service->Rows(all));
  std::vector<std::string> lines, received;
  for (StoredRow& r : rows) {
    lines.push_back(std::move(r.result));
    received.push_back(std::move(r.row));
  }
  return QuestionsOfResultLines(lines, db, &received);
}

int RunTestset(TestsetFlags f) {
  // SIGTERM and Ctrl-C stop the build where it polls; where it does not (reading a huge log,
  // grouping), the command ends 1.5 s after the signal all the same (R2).
  StopOnSignals signals(std::chrono::milliseconds(1500));
  std::vector<fs::NamedPath> inputs;
  if (!f.options.logs.empty()) inputs.push_back({"--logs", f.options.logs});
  if (!f.options.docs.empty()) inputs.push_back({"--docs", f.options.docs});
  if (!f.options.heldout.empty()) inputs.push_back({"--heldout", f.options.heldout});
  if (Status s = fs::CheckOutputsDistinct(inputs, {{"--out", f.out}, {"--report", f.report}});
      !s.ok()) {
    PrintError("tala testset", s);
    return 2;
  }
  if (!f.options.logs.empty() && IsServeDatabase(f.options.logs)) {
    auto logged = ServeQuestions(f.options.logs);
    if (!logged) {
      PrintError("tala testset", logged.error());
      return ExitCodeFor(logged.error());
    }
    f.options.logged = std::move(*logged);
    f.options.logs.clear();
  }
  ProgressLine line(isatty(STDERR_FILENO) != 0);
  if (!f.no_progress && !f.options.dry_run) {
    f.options.progress = [&line](const Progress& p) { line.Update(p); };
  }
  std::optional<Result<Testset>> result;
  int stop_code = 130;
  f.options.stop = signals.flag();
  result.emplace(BuildTestset(f.options));
  stop_code = signals.exit_code();
  line.Finish();
  Result<Testset>& built = *result;
  if (!built) {
    PrintError("tala testset", built.error());
    if (built.error().code() == ErrorCode::kCancelled) {
      std::fprintf(stderr,
                   "tala testset: the judge's replies so far are in its cache; the same command "
                   "again asks only for the rest\n");
      return stop_code;
    }
    return ExitCodeFor(built.error());
  }
  if (f.options.dry_run) {
    if (f.json) {
      std::printf("%s\n", TestsetReportJson(built->report).c_str());
    } else {
      std::printf("%s", TestsetReportText(built->report).c_str());
    }
    return 0;
  }
  std::string text;
  for (const TestsetItem& item : built->items) text += TestsetItemJson(item) + "\n";
  if (Status s = fs::WriteFileAtomically(f.out, text); !s.ok()) {
    PrintError("tala testset", s);
    return 2;
  }
  if (!f.report.empty()) {
    if (Status s = fs::WriteFileAtomically(f.report, TestsetReportHtml(*built)); !s.ok()) {
      PrintError("tala testset", s);
      return 2;
    }
  }
  if (f.json) {
    std::printf("%s\n", TestsetReportJson(built->report).c_str());
  } else {
    std::printf("%s", TestsetReportText(built->report).c_str());
    std::printf(
        "%zu candidates written to %s; review them, then: tala testset accept %s "
        "--labels labels.jsonl -o golden.jsonl\n",
        built->items.size(), f.out.c_str(), f.out.c_str());
  }
  return 0;
}

int RunAccept(const TestsetFlags& f) {
  if (Status s = fs::CheckOutputsDistinct({{"CANDIDATES", f.candidates}, {"--labels", f.labels}},
                                          {{"--out", f.golden}});
      !s.ok()) {
    PrintError("tala testset accept", s);
    return 2;
  }
  auto accepted = AcceptTestset(f.candidates, f.labels);
  if (!accepted) {
    PrintError("tala testset accept", accepted.error());
    return ExitCodeFor(accepted.error());
  }
  const int64_t kept = accepted->accepted + accepted->edited + accepted->unanswerable;
  if (kept == 0) {
    // An empty golden set would pass every later tala ci run (R10): say so, write nothing.
    PrintError("tala testset accept",
               InvalidArgument("no item was accepted, edited or marked unanswerable in " +
                               f.labels + " (" + std::to_string(accepted->rejected) +
                               " rejected, " + std::to_string(accepted->needs_expert) +
                               " need an expert, " + std::to_string(accepted->unlabelled) +
                               " not reviewed): " + f.golden + " was not written"));
    return 2;
  }
  if (Status s = fs::WriteFileAtomically(f.golden, accepted->golden_jsonl); !s.ok()) {
    PrintError("tala testset accept", s);
    return 2;
  }
  const int64_t written = kept;
  std::printf(
      "%lld golden rows written to %s: %lld accepted, %lld edited, %lld unanswerable "
      "(should refuse); left out: %lld rejected, %lld need an expert, %lld not "
      "reviewed\n",
      static_cast<long long>(written), f.golden.c_str(), static_cast<long long>(accepted->accepted),
      static_cast<long long>(accepted->edited), static_cast<long long>(accepted->unanswerable),
      static_cast<long long>(accepted->rejected), static_cast<long long>(accepted->needs_expert),
      static_cast<long long>(accepted->unlabelled));
  return 0;
}

int RunRemap(const TestsetFlags& f) {
  const std::string out = f.remap_out.empty() ? f.remap_golden : f.remap_out;
  if (Status s = fs::CheckOutputsDistinct({{"--chunks", f.remap_chunks}}, {{"--out", out}});
      !s.ok()) {
    PrintError("tala testset remap", s);
    return 2;
  }
  std::error_code ec;
  const bool folder = std::filesystem::is_directory(f.remap_chunks, ec);
  if (f.remap_chunk_chars > 0 && !folder) {
    PrintError("tala testset remap",
               InvalidArgument("--chunk-chars cuts a folder of documents; " + f.remap_chunks +
                               " is a chunks file, cut already"));
    return 2;
  }
  // The new index as it is: every chunk, however short (one may hold the end of a quote).
  auto docs = testset::ReadDocuments(
      f.remap_chunks,
      {.flag = "--chunks",
       .every_chunk = true,
       .chunk_chars = f.remap_chunk_chars > 0 ? f.remap_chunk_chars : testset::kChunkChars});
  if (!docs) {
    PrintError("tala testset remap", docs.error());
    return ExitCodeFor(docs.error());
  }
  if (docs->chunks.empty()) {
    PrintError("tala testset remap",
               InvalidArgument("no chunk was read from " + f.remap_chunks +
                               ": the new chunking is a JSON Lines file of {id, text, source} "
                               "or a folder of documents; " +
                               f.remap_golden + " was not rewritten"));
    return 2;
  }
  auto remapped = testset::RemapGolden(f.remap_golden, docs->chunks);
  if (!remapped) {
    PrintError("tala testset remap", remapped.error());
    return ExitCodeFor(remapped.error());
  }
  if (Status s = fs::WriteFileAtomically(out, remapped->golden_jsonl); !s.ok()) {
    PrintError("tala testset remap", s);
    return 2;
  }
  const testset::Remapped& r = *remapped;
  std::printf(
      "%lld rows: %lld with their evidence found in the %zu chunks of %s (%lld with other "
      "context ids than before, %lld with a quote across chunks), %lld without quotes kept as "
      "they were; written to %s\n",
      static_cast<long long>(r.rows), static_cast<long long>(r.remapped), docs->chunks.size(),
      f.remap_chunks.c_str(), static_cast<long long>(r.changed),
      static_cast<long long>(r.straddling), static_cast<long long>(r.without_quotes), out.c_str());
  if (!r.lost.empty()) {
    std::printf(
        "%zu rows whose evidence no chunk holds now, %.1f%% of the traffic the golden "
        "set stands for (kept unchanged; find their evidence or drop them):\n",
        r.lost.size(),
        r.traffic > 0 ? 100.0 * static_cast<double>(r.lost_traffic) / static_cast<double>(r.traffic)
                      : 0.0);
    for (const testset::LostEvidence& l : r.lost) {
      std::printf("  %s  \"%s\": \"%s\"\n", l.id.c_str(), l.question.c_str(),
                  l.quotes.front().c_str());
    }
  }
  return r.lost.empty() ? 0 : 1;
}

}  // namespace

void AddTestsetCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<TestsetFlags>();
  CLI::App* cmd = app.add_subcommand(
      "testset",
      "Candidates for a golden set, real questions first: the logged questions are grouped "
      "into intents (typos, casing, word order and filler fall together), picked, seeded, in "
      "proportion to traffic with a floor for rare intents, each in a user's own words; each "
      "gets a reference drafted from the documents with verbatim quotes, and answerable "
      "yes / partly / no (a question the documents cannot answer becomes a \"should refuse\" "
      "item). A person reviews the candidates; `tala testset accept` keeps the accepted ones.");
  cmd->add_option("--logs", f->options.logs,
                  "logged interactions: any dataset tala reads (JSON Lines, JSON, CSV), a "
                  "results file, or a tala serve database (its scored rows); their questions are "
                  "the candidates (each question of a conversation, a follow-up kept with the "
                  "questions before it), and rows that failed (a low score, a diagnosis other "
                  "than healthy, \"feedback\": \"down\") are drawn first");
  cmd->add_option("--docs", f->options.docs,
                  "the documents the answers come from: a folder of .txt, .md (split on "
                  "headings), .html and .pdf files, or a JSON Lines file of your own chunks "
                  "{id, text, source}");
  cmd->add_option("--size", f->options.size, "items to pick")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", f->options.seed,
                  "the pick's seed: the same inputs and seed give the same file, byte for byte")
      ->capture_default_str();
  cmd->add_option("--failed-share", f->options.failed_share,
                  "up to this share of the items comes first from intents whose rows failed")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--always-share", f->options.always_share,
                  "every intent carrying at least this share of the logged questions is picked "
                  "first, the largest first, so the top needs are always in (default: half an "
                  "item's share, 1 / (2 x size): 0.01 at --size 50; 1 turns it off)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--heldout", f->options.heldout,
                  "a dataset of questions the set must not repeat (an intent they ask is left "
                  "out), so nothing leaks into a held-out evaluation");
  cmd->add_option("--judge", f->options.judge,
                  "who drafts the references: offline (extractive, no model call; writes no "
                  "question), or openai:MODEL / anthropic:MODEL, which drafts each reference "
                  "with verbatim quotes (checked character for character, redrafted once) and "
                  "writes questions, single- and multi-hop, for the documents no logged "
                  "question touches")
      ->capture_default_str();
  cmd->add_option("--synthetic-share", f->options.synthetic_share,
                  "with an LLM judge and a log: up to this share of the items is written for "
                  "documents no logged question touches (without a log, every item is)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--dry-run", f->options.dry_run,
                "with an LLM judge: estimate the calls, tokens and cost (cache hits counted); "
                "call nothing, write nothing");
  cmd->add_flag("--no-progress", f->no_progress, "no progress line while the judge works");
  AddLlmOptions(cmd, f->options.llm, nullptr, /*for_metrics=*/false);
  cmd->add_option("--out,-o", f->out, "the candidates file to write (JSON Lines)")
      ->capture_default_str();
  cmd->add_flag("--json", f->json, "print the report as JSON");
  cmd->add_option("--report", f->report,
                  "also write the report as one HTML page, the candidates listed");
  cmd->callback([f, exit_code, cmd] {
    if (cmd->get_subcommands().empty()) *exit_code = RunTestset(*f);
  });

  CLI::App* accept = cmd->add_subcommand(
      "accept",
      "Reviewed candidates into golden.jsonl: the labels file holds a line per reviewed item, "
      "{\"id\", \"decision\": accept | edit | unanswerable | reject | needs-expert, "
      "\"user_input\"?, \"reference\"?, \"reason\"?}. Accepted and edited items (edits applied) "
      "and unanswerable ones (should-refuse items) are written; the rest are left out.");
  accept->add_option("CANDIDATES", f->candidates, "the candidates file tala testset wrote")
      ->required();
  accept->add_option("--labels", f->labels, "the review's decisions (JSON Lines)")->required();
  accept->add_option("--out,-o", f->golden, "the golden set to write, a dataset tala reads")
      ->capture_default_str();
  accept->callback([f, exit_code] { *exit_code = RunAccept(*f); });

  CLI::App* remap = cmd->add_subcommand(
      "remap",
      "A golden set's evidence onto another chunking of the same documents (a new chunk size, "
      "splitter or index): each reference quote is found again, in the chunk that now holds it "
      "or the consecutive chunks it now spans, and the row's reference_context_ids and "
      "reference_contexts "
      "are rewritten, so id-based retrieval metrics run on the new index without labelling "
      "again. A quote that says where it stands in its document (document, start, end: "
      "characters) is found at that place when the new chunks say theirs (a folder, or "
      "chunks with \"start\"), so words a document repeats map to the right section. Rows "
      "whose evidence no chunk holds any more are listed with the share of traffic "
      "they carry, and kept unchanged. Exit 0, or 1 when some evidence was not found.\n\n"
      "Example: tala testset remap golden.jsonl --chunks docs/ --chunk-chars 600 -o g600.jsonl");
  remap->add_option("GOLDEN", f->remap_golden, "the golden set (tala testset accept's output)")
      ->required();
  remap
      ->add_option("--chunks", f->remap_chunks,
                   "the new chunking: a JSON Lines file of chunks {id, text, source, start?} "
                   "(start: where the text begins in its source document, in characters), or "
                   "a folder of documents as tala testset --docs reads them")
      ->required();
  remap
      ->add_option("--chunk-chars", f->remap_chunk_chars,
                   "with a folder: cut its sections near this many bytes (default 1200, what "
                   "tala testset cuts at)")
      ->check(CLI::Range(size_t{40}, size_t{1} << 24));
  remap->add_option("--out,-o", f->remap_out, "where to write the remapped set (default: GOLDEN)");
  remap->callback([f, exit_code] { *exit_code = RunRemap(*f); });
}

}  // namespace tala::cli
