#include "tala/merge.h"

#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <queue>

#include "engine/run_tally.h"
#include "fs/output_paths.h"
#include "io/readers/buffered_input.h"
#include "io/readers/results_reader.h"
#include "io/readers/row_parser.h"
#include "io/shard_state.h"
#include "io/writers/run_records.h"

namespace tala {

namespace {

constexpr const char* kStateSuffix = ".shard.json";

std::string ResultsPathOf(const std::string& arg) {
  const std::string suffix = kStateSuffix;
  if (arg.size() > suffix.size() &&
      arg.compare(arg.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return arg.substr(0, arg.size() - suffix.size());
  }
  return arg;
}

// One shard's results file, a row line at a time: the manifest is kept, run records skipped
// (the state carries the accounting).
class ShardCursor {
 public:
  static Result<ShardCursor> Open(const std::string& path) {
    TALA_ASSIGN_OR_RETURN(io::BufferedInput input, io::BufferedInput::Open(path));
    return ShardCursor(path, std::move(input));
  }
  // The next row into line() and row(); false at the end of the file.
  Result<bool> Next() {
    for (;;) {
      auto st = input_.NextLine(&line_, 64u << 20);
      if (st == io::BufferedInput::LineStatus::kEnd) return false;
      if (st == io::BufferedInput::LineStatus::kError) {
        return IoError("reading " + path_ + ": " + input_.error());
      }
      const int64_t line_no = input_.line_number();
      if (st == io::BufferedInput::LineStatus::kTooLong) {
        return DataError({path_, line_no, 0, ""}, "line longer than 64 MiB");
      }
      if (line_.find_first_not_of(" \t") == std::string_view::npos) continue;
      simdjson::dom::element root, record;
      if (auto err = parser_.parse(line_.data(), line_.size(), false).get(root)) {
        return io::JsonSyntaxError(err, path_, line_no);
      }
      if (!root[io::kManifestKey].get(record)) {
        if (!manifest_) manifest_ = io::ParseManifest(record);
        continue;
      }
      if (!root[io::kRunRecordKey].get(record)) continue;
      TALA_ASSIGN_OR_RETURN(row_, io::ParseResultRow(root, path_, line_no));
      return true;
    }
  }
  std::string_view line() const { return line_; }
  const io::ResultRow& row() const { return row_; }
  const std::optional<io::RunManifest>& manifest() const { return manifest_; }

 private:
  ShardCursor(std::string path, io::BufferedInput input)
      : path_(std::move(path)), input_(std::move(input)) {}
  std::string path_;
  io::BufferedInput input_;
  simdjson::dom::parser parser_;
  std::string_view line_;
  io::ResultRow row_;
  std::optional<io::RunManifest> manifest_;
};

struct Shard {
  std::string results;
  io::ShardState state;
  std::unique_ptr<ShardCursor> cursor;      // while it is read
  std::optional<io::RunManifest> manifest;  // once its first row is read
  // What its rows add up to, checked against its state at the end.
  int64_t rows = 0;
  std::vector<io::MetricTotals> seen;
};

Result<std::vector<Shard>> ReadStates(const MergeOptions& o) {
  if (o.shards.empty()) return InvalidArgument("give the results files of every shard to merge");
  std::vector<Shard> shards;
  for (const std::string& arg : o.shards) {
    Shard shard;
    shard.results = ResultsPathOf(arg);
    auto state = io::ReadShardState(ShardStatePath(shard.results));
    if (!state && state.error().code() == ErrorCode::kNotFound) {
      return NotFound(shard.results + " has no shard state (" + ShardStatePath(shard.results) +
                      "): it is not a shard, or the shard has not finished");
    }
    if (!state) return state.error();
    shard.state = std::move(*state);
    shards.push_back(std::move(shard));
  }
  std::sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) {
    return a.state.shard.index < b.state.shard.index;
  });
  const io::ShardState& first = shards.front().state;
  const int n = first.shard.count;
  auto name = [](const Shard& s) {
    return s.results + " (shard " + std::to_string(s.state.shard.index) + "/" +
           std::to_string(s.state.shard.count) + " by " + ShardByName(s.state.shard.by) + ")";
  };
  for (size_t i = 0; i < shards.size(); ++i) {
    const io::ShardState& st = shards[i].state;
    auto differ = [&](const std::string& what) {
      return InvalidArgument(name(shards[i]) + " and " + name(shards.front()) + " differ in " +
                             what + ": they are not parts of one run");
    };
    if (st.shard.count != n || st.shard.by != first.shard.by) return differ("how they split");
    if (st.judge != first.judge) return differ("judge (" + st.judge + ", " + first.judge + ")");
    if (first.shard.by != ShardBy::kPartition &&
        (st.dataset != first.dataset || st.dataset_bytes != first.dataset_bytes)) {
      return differ("dataset (" + st.dataset + ", " + first.dataset + ")");
    }
    if (first.shard.by != ShardBy::kPartition && st.dataset_sha256 != first.dataset_sha256) {
      return differ("dataset content (" + st.dataset +
                    " was edited between the shards: its SHA-256 differs)");
    }
    if (st.diagnosis != first.diagnosis) {
      return differ("diagnosis thresholds (" + st.diagnosis + "; " + first.diagnosis + ")");
    }
    bool same_metrics = st.metrics.size() == first.metrics.size();
    for (size_t m = 0; same_metrics && m < st.metrics.size(); ++m) {
      same_metrics = st.metrics[m].key == first.metrics[m].key;
    }
    if (!same_metrics) return differ("metrics (pass the same --metrics to every shard)");
    if (i > 0 && st.shard.index == shards[i - 1].state.shard.index) {
      return InvalidArgument("shard " + std::to_string(st.shard.index) + "/" + std::to_string(n) +
                             " is given twice: " + shards[i - 1].results + " and " +
                             shards[i].results);
    }
  }
  if (static_cast<int>(shards.size()) != n) {
    std::string missing;
    size_t next = 0;
    for (int i = 0; i < n; ++i) {
      if (next < shards.size() && shards[next].state.shard.index == i) {
        ++next;
      } else {
        missing += (missing.empty() ? "" : ", ") + std::to_string(i) + "/" + std::to_string(n);
      }
    }
    return InvalidArgument("the run has " + std::to_string(n) + " shards and " +
                           std::to_string(shards.size()) + " were given; missing: " + missing);
  }
  for (Shard& s : shards) {
    for (const io::MetricTotals& m : s.state.metrics) s.seen.push_back({m.key, m.direction});
  }
  return shards;
}

Status CheckManifest(const Shard& shard, const Shard& first) {
  const auto& a = shard.manifest;
  const auto& b = first.manifest;
  if (!a || !b) return OkStatus();
  if (a->metrics != b->metrics || a->prompts != b->prompts || a->embeddings != b->embeddings) {
    return InvalidArgument(shard.results + " and " + first.results +
                           " were made with other metric or prompt versions or embeddings: "
                           "they are not parts of one run");
  }
  return OkStatus();
}

// Each row once, in the dataset's order, into the file and the tally.
class RowSink {
 public:
  RowSink(std::FILE* out, const std::string& path, RunTally& tally)
      : out_(out), path_(path), tally_(tally) {}
  Status Take(Shard& shard) {
    const io::ResultRow& row = shard.cursor->row();
    std::string_view line = shard.cursor->line();
    if (std::fwrite(line.data(), 1, line.size(), out_) != line.size() ||
        std::fputc('\n', out_) == EOF) {
      return IoError("writing " + path_);
    }
    tally_.AddKept(row, RunTally::Kept::kMerged);
    ++shard.rows;
    for (io::MetricTotals& m : shard.seen) {
      auto it = row.scores.find(m.key);
      if (it != row.scores.end() && it->second) {
        ++m.scored;
        m.sum += *it->second;
      } else if (std::find(row.failed.begin(), row.failed.end(), m.key) != row.failed.end()) {
        ++m.failed;
      } else {
        ++m.undefined;
      }
    }
    return OkStatus();
  }

 private:
  std::FILE* out_;
  const std::string& path_;
  RunTally& tally_;
};

Status CheckRowsAgainstState(const Shard& s) {
  auto changed = [&](const std::string& what) {
    return DataError({s.results, 0, 0, ""},
                     what + " disagrees with " + ShardStatePath(s.results) +
                         ": the results file was changed after the shard finished; run the "
                         "shard again");
  };
  if (s.rows != s.state.rows_scored) {
    return changed("its row count (" + std::to_string(s.rows) + ", the state says " +
                   std::to_string(s.state.rows_scored) + ")");
  }
  for (size_t i = 0; i < s.seen.size(); ++i) {
    const io::MetricTotals &a = s.seen[i], &b = s.state.metrics[i];
    bool same_sum = std::abs(a.sum - b.sum) <= 1e-9 * std::max(1.0, std::abs(b.sum));
    if (a.scored != b.scored || a.failed != b.failed || a.undefined != b.undefined || !same_sum) {
      return changed("the scores of " + a.key);
    }
  }
  return OkStatus();
}

void AddTallies(std::vector<std::pair<std::string, CallTally>>& into,
                const std::vector<std::pair<std::string, CallTally>>& from) {
  for (const auto& [name, t] : from) {
    auto it =
        std::find_if(into.begin(), into.end(), [&](const auto& p) { return p.first == name; });
    if (it == into.end()) {
      into.emplace_back(name, t);
    } else {
      it->second += t;
    }
  }
}

void AddUnique(std::vector<std::string>& into, const std::vector<std::string>& from) {
  for (const std::string& s : from) {
    if (std::find(into.begin(), into.end(), s) == into.end()) into.push_back(s);
  }
}

// Bad rows, errors, accounting, notes: what the rows do not carry.
void AddStates(const std::vector<Shard>& shards, int max_errors, RunSummary& summary) {
  for (const Shard& s : shards) {
    const io::ShardState& st = s.state;
    summary.rows_read += st.rows_read;
    summary.rows_skipped += st.rows_skipped;
    summary.errors.insert(summary.errors.end(), st.errors.begin(), st.errors.end());
    AddUnique(summary.warnings, st.warnings);
    if (!st.accounting) continue;
    RunAccounting& a = summary.accounting;
    a.used = true;
    a.total += st.accounting->total;
    AddTallies(a.by_prompt, st.accounting->by_prompt);
    AddTallies(a.by_metric, st.accounting->by_metric);
    a.rows += st.accounting->rows;
    AddUnique(a.models_reported, st.accounting->models_reported);
    AddUnique(a.system_fingerprints, st.accounting->system_fingerprints);
  }
  // Each shard kept its first errors; the run's first are among them, in the file's order.
  std::stable_sort(
      summary.errors.begin(), summary.errors.end(),
      [](const Status& a, const Status& b) { return a.where().line < b.where().line; });
  if (static_cast<int>(summary.errors.size()) > max_errors) summary.errors.resize(max_errors);
  summary.notes = shards.front().state.notes;
}

// Opens a shard and reads its first row (and, before it, its manifest, checked against the
// first shard's); false when it has no rows.
Result<bool> OpenShard(Shard& s, const Shard& first) {
  TALA_ASSIGN_OR_RETURN(ShardCursor cursor, ShardCursor::Open(s.results));
  s.cursor = std::make_unique<ShardCursor>(std::move(cursor));
  TALA_ASSIGN_OR_RETURN(bool has_row, s.cursor->Next());
  s.manifest = s.cursor->manifest();
  TALA_RETURN_IF_ERROR(CheckManifest(s, first));
  return has_row;
}

Status MergeRows(std::vector<Shard>& shards, RowSink& sink) {
  TALA_ASSIGN_OR_RETURN(bool first_has_row, OpenShard(shards.front(), shards.front()));
  if (shards.front().state.shard.by != ShardBy::kHash) {
    // Range and partition shards are consecutive parts: one after the other.
    bool has_row = first_has_row;
    for (size_t i = 0; i < shards.size(); ++i) {
      if (i > 0) {
        TALA_ASSIGN_OR_RETURN(has_row, OpenShard(shards[i], shards.front()));
      }
      while (has_row) {
        TALA_RETURN_IF_ERROR(sink.Take(shards[i]));
        TALA_ASSIGN_OR_RETURN(has_row, shards[i].cursor->Next());
      }
      TALA_RETURN_IF_ERROR(CheckRowsAgainstState(shards[i]));
      shards[i].cursor.reset();
    }
    return OkStatus();
  }
  // Hash shards interleave: the row with the lowest number in the dataset goes next.
  using Next = std::pair<int64_t, size_t>;  // position, shard
  std::priority_queue<Next, std::vector<Next>, std::greater<>> queue;
  auto push = [&](size_t i, bool has_row) -> Status {
    Shard& s = shards[i];
    if (!has_row) return CheckRowsAgainstState(s);
    if (s.rows >= static_cast<int64_t>(s.state.positions.size())) {
      return DataError({s.results, 0, 0, ""}, "has more rows than its state has positions");
    }
    queue.push({s.state.positions[s.rows], i});
    return OkStatus();
  };
  TALA_RETURN_IF_ERROR(push(0, first_has_row));
  for (size_t i = 1; i < shards.size(); ++i) {
    TALA_ASSIGN_OR_RETURN(bool has_row, OpenShard(shards[i], shards.front()));
    TALA_RETURN_IF_ERROR(push(i, has_row));
  }
  while (!queue.empty()) {
    size_t i = queue.top().second;
    queue.pop();
    TALA_RETURN_IF_ERROR(sink.Take(shards[i]));
    TALA_ASSIGN_OR_RETURN(bool has_row, shards[i].cursor->Next());
    TALA_RETURN_IF_ERROR(push(i, has_row));
  }
  return OkStatus();
}

Status MergeInto(const MergeOptions& o, std::vector<Shard>& shards, const std::string& scratch,
                 RunSummary& summary) {
  const io::ShardState& first = shards.front().state;
  summary.judge = first.judge;
  summary.results_path = o.out;
  for (const io::MetricTotals& m : first.metrics) summary.metrics.push_back({m.key, m.direction});
  RunTally tally(summary, analysis::DiagnosisRule{});
  std::FILE* out = std::fopen(scratch.c_str(), "wb");
  if (out == nullptr) return IoError("cannot write " + scratch);
  // The manifest line is the first shard's, for the whole dataset, dated now.
  TALA_ASSIGN_OR_RETURN(ShardCursor peek, ShardCursor::Open(shards.front().results));
  TALA_ASSIGN_OR_RETURN(bool any, peek.Next());
  (void)any;
  Status status = OkStatus();
  if (peek.manifest()) {
    io::RunManifest m = *peek.manifest();
    m.created = io::UtcNow();
    if (first.shard.by == ShardBy::kPartition) {
      m.dataset = o.dataset_label.empty() ? first.dataset : o.dataset_label;
    }
    std::string line = io::FormatManifestLine(m) + "\n";
    if (std::fwrite(line.data(), 1, line.size(), out) != line.size()) {
      status = IoError("writing " + scratch);
    }
  }
  RowSink sink(out, scratch, tally);
  if (status.ok()) status = MergeRows(shards, sink);
  if (status.ok()) {
    AddStates(shards, o.max_errors_shown, summary);
    if (summary.accounting.used) {
      std::string line =
          io::FormatRunRecordLine(summary.accounting, "complete", io::UtcNow()) + "\n";
      if (std::fwrite(line.data(), 1, line.size(), out) != line.size()) {
        status = IoError("writing " + scratch);
      }
    }
  }
  if (std::fclose(out) != 0 && status.ok()) status = IoError("writing " + scratch);
  TALA_RETURN_IF_ERROR(status);
  tally.Finish();
  if (summary.rows_read == 0) {
    return DataError({first.dataset, 0, 0, ""}, "the dataset holds no rows");
  }
  int64_t failed = 0;
  for (const Shard& s : shards) failed += s.state.rows_failed;
  if (failed != summary.rows_failed) {
    return DataError({shards.front().results, 0, 0, ""},
                     "the shards' failed rows disagree with their states; run them again");
  }
  return OkStatus();
}

}  // namespace

Result<RunSummary> Merge(const MergeOptions& o) {
  std::vector<fs::NamedPath> inputs;
  for (const std::string& shard : o.shards) {
    inputs.push_back({"shard", shard});
    inputs.push_back({"shard state", ShardStatePath(shard)});
  }
  TALA_RETURN_IF_ERROR(fs::CheckOutputsDistinct(inputs, {{"-o", o.out}}));
  TALA_ASSIGN_OR_RETURN(std::vector<Shard> shards, ReadStates(o));
  std::string scratch = o.out + ".partial-" + std::to_string(getpid());
  RunSummary summary;
  Status status = MergeInto(o, shards, scratch, summary);
  if (status.ok() && std::rename(scratch.c_str(), o.out.c_str()) != 0) {
    status = IoError("cannot move the merged results to " + o.out);
  }
  if (!status.ok()) {
    std::remove(scratch.c_str());
    return status;
  }
  return summary;
}

}  // namespace tala
