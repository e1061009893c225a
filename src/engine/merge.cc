#include "tala/merge.h"

#include <fcntl.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <queue>
#include <thread>

#include "engine/run_tally.h"
#include "engine/shard_files.h"
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
  // The next row into row() and its bytes in the file into begin()..end() (its newline
  // included when it has one); false at the end of the file.
  Result<bool> Next() {
    for (;;) {
      begin_ = input_.offset();
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
      end_ = input_.offset();
      simdjson::dom::element root, record;
      if (auto err = parser_.parse(line_.data(), line_.size(), false).get(root)) {
        return io::JsonSyntaxError(err, path_, line_no);
      }
      // tala writes a row's id first: such a line is neither a manifest nor a run record, and
      // the two lookups that would say so cost a fifth of a merge.
      if (!line_.starts_with(R"({"id":)")) {
        if (!root[io::kManifestKey].get(record)) {
          if (!manifest_) manifest_ = io::ParseManifest(record);
          continue;
        }
        if (!root[io::kRunRecordKey].get(record)) continue;
      }
      TALA_ASSIGN_OR_RETURN(row_, io::ParseResultRow(root, path_, line_no));
      return true;
    }
  }
  uint64_t begin() const { return begin_; }
  uint64_t end() const { return end_; }
  // The row's line ends the file without a newline.
  bool unterminated() const { return end_ - begin_ == line_.size(); }
  const io::ResultRow& row() const { return row_; }
  const std::optional<io::RunManifest>& manifest() const { return manifest_; }

 private:
  ShardCursor(std::string path, io::BufferedInput input)
      : path_(std::move(path)), input_(std::move(input)) {}
  std::string path_;
  io::BufferedInput input_;
  simdjson::dom::parser parser_;
  std::string_view line_;
  uint64_t begin_ = 0, end_ = 0;
  io::ResultRow row_;
  std::optional<io::RunManifest> manifest_;
};

// Where a row's line lies in its shard's file.
struct Span {
  uint64_t offset = 0;
  uint64_t size = 0;          // its newline included, when it has one
  bool unterminated = false;  // the file's last line, without a newline: the merge adds one
};

struct Shard {
  std::string results;
  io::ShardState state;
  std::optional<io::RunManifest> manifest;  // read before its first row
  // Its rows, as read: where they lie, and what the tally counts of them.
  std::vector<Span> spans;
  std::optional<KeptRows> kept;
  Status read = OkStatus();
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

// Calls work(i) for each i below n, on as many threads as there are cores (at most n).
template <typename Work>
void OnEveryCore(size_t n, const Work& work) {
  const size_t threads = std::min<size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<size_t> next{0};
  auto loop = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) work(i);
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(loop);
  loop();
  for (std::thread& t : pool) t.join();
}

// Totals each metric's cells of the kept rows, for the check against the shard's state.
void CountKept(Shard& s) {
  const KeptRows& kept = *s.kept;
  s.rows = static_cast<int64_t>(kept.size());
  for (size_t r = 0; r < kept.size(); ++r) {
    for (size_t i = 0; i < s.seen.size(); ++i) {
      switch (kept.cell(r, i)) {
        case KeptRows::Cell::kScored:
          ++s.seen[i].scored;
          s.seen[i].sum += kept.value(r, i);
          break;
        case KeptRows::Cell::kFailed:
          ++s.seen[i].failed;
          break;
        case KeptRows::Cell::kUndefined:
          ++s.seen[i].undefined;
          break;
      }
    }
  }
}

// A shard's results file as its state recorded it when the shard finished: its size and its
// modification time, to the nanosecond.
bool Unchanged(const Shard& s) {
  const std::optional<FileVersion> now = FileVersionOf(s.results);
  return now && now->bytes == s.state.file_bytes && now->modified_ns == s.state.file_modified_ns;
}

// A shard whose results file is as it finished, beside its rows file: the tally's view of each
// row and where its line lies are read from the rows file, and no row is parsed. False, leaving
// `s` as it was, when anything does not check out (an older tala's shard, a file copied without
// its times, or changed): its rows are then parsed and checked against its state.
bool ReadKeptShard(Shard& s, const std::vector<std::string>& keys) {
  if (s.state.kept_sha256.empty() || !Unchanged(s)) return false;
  auto rows = ReadShardRows(ShardRowsPath(s.results), s.state.kept_sha256, keys);
  if (!rows || rows->kept.size() != static_cast<size_t>(s.state.rows_scored)) return false;
  uint64_t at = s.state.rows_begin;
  std::vector<Span> spans;
  spans.reserve(rows->line_bytes.size());
  for (uint32_t bytes : rows->line_bytes) {
    spans.push_back({at, bytes, false});
    at += bytes;
  }
  if (at - s.state.rows_begin != s.state.rows_bytes || at > s.state.file_bytes) return false;
  // The manifest is the file's first line: read up to the first row.
  auto cursor = ShardCursor::Open(s.results);
  if (!cursor || !cursor->Next()) return false;
  s.manifest = cursor->manifest();
  s.spans = std::move(spans);
  s.kept.emplace(std::move(rows->kept));
  CountKept(s);
  return true;
}

// One shard's rows: where each lies, what it scored, and their sums for the check against its
// state, read from its rows file or else parsed. Runs on a thread of its own; the outcome is in
// `s.read`.
void ReadShard(Shard& s, const std::vector<std::string>& keys) {
  if (ReadKeptShard(s, keys)) return;
  s.kept.emplace(keys);
  auto read = [&]() -> Status {
    TALA_ASSIGN_OR_RETURN(ShardCursor cursor, ShardCursor::Open(s.results));
    for (;;) {
      TALA_ASSIGN_OR_RETURN(bool has_row, cursor.Next());
      if (!s.manifest) s.manifest = cursor.manifest();
      if (!has_row) return OkStatus();
      s.spans.push_back({cursor.begin(), cursor.end() - cursor.begin(), cursor.unterminated()});
      s.kept->Add(cursor.row());
    }
  };
  s.read = read();
  if (s.read.ok()) CountKept(s);
}

// The merged order: (shard, row within it) for each row of the dataset.
Result<std::vector<std::pair<uint32_t, uint32_t>>> MergedOrder(const std::vector<Shard>& shards) {
  std::vector<std::pair<uint32_t, uint32_t>> order;
  if (shards.front().state.shard.by != ShardBy::kHash) {
    // Range and partition shards are consecutive parts: one after the other.
    for (uint32_t i = 0; i < shards.size(); ++i) {
      for (uint32_t r = 0; r < shards[i].rows; ++r) order.emplace_back(i, r);
    }
    return order;
  }
  // Hash shards interleave: the row with the lowest number in the dataset goes next.
  using Next = std::pair<int64_t, uint32_t>;  // position, shard
  std::priority_queue<Next, std::vector<Next>, std::greater<>> queue;
  std::vector<uint32_t> taken(shards.size(), 0);
  for (uint32_t i = 0; i < shards.size(); ++i) {
    const Shard& s = shards[i];
    if (s.rows > static_cast<int64_t>(s.state.positions.size())) {
      return DataError({s.results, 0, 0, ""}, "has more rows than its state has positions");
    }
    if (s.rows > 0) queue.push({s.state.positions[0], i});
  }
  while (!queue.empty()) {
    uint32_t i = queue.top().second;
    queue.pop();
    order.emplace_back(i, taken[i]);
    if (++taken[i] < shards[i].rows) queue.push({shards[i].state.positions[taken[i]], i});
  }
  return order;
}

// All of `text` into `out` at byte `at`.
Status WriteAt(int out, std::string_view text, uint64_t at) {
  while (!text.empty()) {
    ssize_t w = pwrite(out, text.data(), text.size(), static_cast<off_t>(at));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return IoError(std::string("writing the merged rows: ") + std::strerror(errno));
    text.remove_prefix(static_cast<size_t>(w));
    at += static_cast<uint64_t>(w);
  }
  return OkStatus();
}

// Copies `size` bytes of `in` from `from` to `out` at `to`: inside the kernel where the file
// systems allow it, else through `buffer`.
Status CopyBytes(int in, uint64_t from, int out, uint64_t to, uint64_t size,
                 std::vector<char>& buffer, bool& in_kernel) {
  auto off_in = static_cast<off_t>(from), off_out = static_cast<off_t>(to);
  while (size > 0) {
    if (in_kernel) {
      ssize_t n = copy_file_range(in, &off_in, out, &off_out, size, 0);
      if (n > 0) {
        size -= static_cast<uint64_t>(n);
        continue;
      }
      if (n == 0) return IoError("a shard's file ended early: was it changed during the merge?");
      if (errno == EINTR) continue;
      if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP &&
          errno != EBADF && errno != EPERM) {
        return IoError(std::string("copying rows: ") + std::strerror(errno));
      }
      in_kernel = false;
    }
    if (buffer.empty()) buffer.resize(1 << 20);
    const size_t chunk = std::min<uint64_t>(size, buffer.size());
    ssize_t n = pread(in, buffer.data(), chunk, off_in);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return IoError("a shard's file ended early: was it changed during the merge?");
    TALA_RETURN_IF_ERROR(WriteAt(out, std::string_view(buffer.data(), static_cast<size_t>(n)),
                                 static_cast<uint64_t>(off_out)));
    off_in += n;
    off_out += n;
    size -= static_cast<uint64_t>(n);
  }
  return OkStatus();
}

// The rows' lines, copied byte for byte into `out` after `head` (the manifest line) and before
// `tail` (the run record): neighbouring lines of one shard go as one range.
Status WriteRows(const std::vector<Shard>& shards,
                 const std::vector<std::pair<uint32_t, uint32_t>>& order, int out,
                 const std::string& head, const std::string& tail) {
  struct Piece {
    uint32_t shard;
    uint64_t from, to, size;
    bool newline;  // add one after it
  };
  std::vector<Piece> pieces;
  uint64_t at = head.size();
  for (auto [i, r] : order) {
    const Span& span = shards[i].spans[r];
    if (!pieces.empty() && pieces.back().shard == i && !pieces.back().newline &&
        pieces.back().from + pieces.back().size == span.offset) {
      pieces.back().size += span.size;
    } else {
      pieces.push_back({i, span.offset, at, span.size, false});
    }
    pieces.back().newline = span.unterminated;
    at += span.size + (span.unterminated ? 1 : 0);
  }
  TALA_RETURN_IF_ERROR(WriteAt(out, head, 0));
  TALA_RETURN_IF_ERROR(WriteAt(out, tail, at));
  std::vector<int> in(shards.size(), -1);
  Status status = OkStatus();
  for (size_t i = 0; i < shards.size() && status.ok(); ++i) {
    in[i] = open(shards[i].results.c_str(), O_RDONLY | O_CLOEXEC);
    if (in[i] < 0)
      status = IoError("cannot read " + shards[i].results + ": " + std::strerror(errno));
  }
  // One thread: writers to one file take turns on its lock, so more would only wait.
  std::vector<char> buffer;
  bool in_kernel = true;
  for (size_t p = 0; p < pieces.size() && status.ok(); ++p) {
    const Piece& piece = pieces[p];
    status = CopyBytes(in[piece.shard], piece.from, out, piece.to, piece.size, buffer, in_kernel);
    if (status.ok() && piece.newline) status = WriteAt(out, "\n", piece.to + piece.size);
  }
  for (int fd : in) {
    if (fd >= 0) close(fd);
  }
  return status;
}

Status MergeInto(const MergeOptions& o, std::vector<Shard>& shards, const std::string& scratch,
                 RunSummary& summary) {
  const io::ShardState& first = shards.front().state;
  summary.judge = first.judge;
  summary.results_path = o.out;
  for (const io::MetricTotals& m : first.metrics) summary.metrics.push_back({m.key, m.direction});
  // Every shard read side by side, then checked in their order, so the first fault named is
  // the one a reading in order would meet.
  const std::vector<std::string> keys = MetricKeys(summary.metrics);
  OnEveryCore(shards.size(), [&](size_t i) { ReadShard(shards[i], keys); });
  for (Shard& s : shards) {
    TALA_RETURN_IF_ERROR(s.read);
    TALA_RETURN_IF_ERROR(CheckManifest(s, shards.front()));
    TALA_RETURN_IF_ERROR(CheckRowsAgainstState(s));
  }
  TALA_ASSIGN_OR_RETURN(auto order, MergedOrder(shards));
  AddStates(shards, o.max_errors_shown, summary);
  // The manifest line is the first shard's, for the whole dataset, dated now.
  std::string head, tail;
  if (shards.front().manifest) {
    io::RunManifest m = *shards.front().manifest;
    m.created = io::UtcNow();
    if (first.shard.by == ShardBy::kPartition) {
      m.dataset = o.dataset_label.empty() ? first.dataset : o.dataset_label;
    }
    head = io::FormatManifestLine(m) + "\n";
  }
  if (summary.accounting.used) {
    tail = io::FormatRunRecordLine(summary.accounting, "complete", io::UtcNow()) + "\n";
  }
  const int out = open(scratch.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (out < 0) return IoError("cannot write " + scratch + ": " + std::strerror(errno));
  // The rows' bytes are copied (the kernel's work) while they are counted (ours).
  Status status = OkStatus();
  std::thread copier([&] { status = WriteRows(shards, order, out, head, tail); });
  RunTally tally(summary, analysis::DiagnosisRule{});
  for (auto [i, r] : order) tally.AddKept(*shards[i].kept, r, RunTally::Kept::kMerged);
  tally.Finish();
  copier.join();
  if (close(out) != 0 && status.ok()) status = IoError("writing " + scratch);
  TALA_RETURN_IF_ERROR(status);
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
    inputs.push_back({"shard state", ShardStatePath(ResultsPathOf(shard))});
    inputs.push_back({"shard rows", ShardRowsPath(ResultsPathOf(shard))});
  }
  TALA_RETURN_IF_ERROR(fs::CheckOutputsDistinct(inputs, {{"-o", o.out}}));
  TALA_RETURN_IF_ERROR(fs::CheckRenamedIntoPlace({"-o", o.out}));
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
