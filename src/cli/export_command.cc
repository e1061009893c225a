// tala export DB --out FILE: rows `tala serve` stored (the failing ones, say) back into a dataset
// file, so a production failure becomes a golden test case.

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "fs/atomic_file.h"
#include "fs/output_paths.h"
#include "tala/serve.h"

namespace tala::cli {

namespace {

struct ExportFlags {
  std::string db;
  std::string out = "exported.jsonl";
  std::string since;
  std::string metric;
  double max_score = -1;  // < 0: not given
  int64_t limit = 10000;
  bool results = false;
};

int RunExport(const ExportFlags& f) {
  if (!std::filesystem::exists(f.db)) {
    PrintError("tala export", NotFound(f.db + " does not exist (tala serve --db FILE)"));
    return 2;
  }
  // The database (and its journal files) must never be the file written.
  if (Status s = fs::CheckOutputsDistinct(
          {{"DB", f.db}, {"DB's journal", f.db + "-wal"}, {"DB's journal", f.db + "-shm"}},
          {{"-o", f.out}});
      !s.ok()) {
    PrintError("tala export", s);
    return 2;
  }
  ServeOptions o;
  o.db = f.db;
  o.lock_db = false;                            // reading beside a running tala serve is fine
  if (!f.metric.empty()) o.metrics = f.metric;  // the one metric the filter names
  auto service = Service::Open(o);
  if (!service) {
    PrintError("tala export", service.error());
    return ExitCodeFor(service.error());
  }
  RowQuery q;
  q.metric = f.metric;
  q.limit = f.limit;
  if (f.max_score >= 0) q.max_score = f.max_score;
  if (!f.since.empty()) {
    auto since = ParseTimestamp(f.since);
    if (!since) {
      PrintError("tala export", since.error());
      return 2;
    }
    q.since = *since;
  }
  auto rows = (*service)->Rows(q);
  if (!rows) {
    PrintError("tala export", rows.error());
    return ExitCodeFor(rows.error());
  }
  std::string text;
  for (const StoredRow& r : *rows) (text += f.results ? r.result : r.row) += '\n';
  if (Status s = fs::WriteFileAtomically(f.out, text); !s.ok()) {
    PrintError("tala export", s);
    return 2;
  }
  std::printf("%zu rows written to %s\n", rows->size(), f.out.c_str());
  return 0;
}

}  // namespace

void AddExportCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<ExportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Write rows `tala serve` scored back out as a dataset (the rows as received, ready for "
      "tala eval or a golden set), e.g. the production rows whose faithfulness fell below 0.5 "
      "this week: --metric faithfulness --max-score 0.5 --since 2026-12-01T00:00:00Z.");
  cmd->add_option("DB", f->db, "tala serve's database")->required();
  cmd->add_option("--out,-o", f->out, "dataset file to write (JSON Lines)")->capture_default_str();
  cmd->add_option("--since", f->since, "only rows stamped at or after this ISO 8601 UTC time");
  cmd->add_option("--metric", f->metric, "the metric --max-score applies to");
  cmd->add_option("--max-score", f->max_score, "only rows whose --metric is at most this")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--limit", f->limit, "at most this many rows, oldest first")
      ->capture_default_str();
  cmd->add_flag("--results", f->results,
                "write the rows' results lines (scores, reasons, verdicts) instead");
  cmd->callback([f, exit_code] {
    if (f->max_score >= 0 && f->metric.empty()) {
      PrintError("tala export", InvalidArgument("--max-score needs --metric"));
      *exit_code = 2;
      return;
    }
    *exit_code = RunExport(*f);
  });
}

}  // namespace tala::cli
