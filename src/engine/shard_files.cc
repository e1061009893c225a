#include "engine/shard_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "fs/atomic_file.h"
#include "fs/file_digest.h"
#include "io/shard_state.h"

namespace tala {

Status CheckShardOptions(const EvalOptions& o) {
  if (!o.shard.active()) return OkStatus();
  auto refuse = [](const std::string& why) { return InvalidArgument("--shard: " + why); };
  if (o.resume)
    return refuse("a shard is written whole, so a failed one is run again, not resumed");
  if (o.repeats > 1) return refuse("--repeats measures one whole run; not with shards");
  if (!o.labels.empty()) return refuse("give --labels to the merged run (tala estimate)");
  if (o.dataset == "-") return refuse("a shard reads a dataset file, not stdin");
  if (o.out == "-") return refuse("a shard writes a results file (-o FILE), not stdout");
  if (o.dry_run) return refuse("--dry-run estimates the whole dataset; run it without --shard");
  return OkStatus();
}

ShardFiles::~ShardFiles() {
  if (!scratch_.empty()) std::remove(scratch_.c_str());
}

std::string ShardRowsPath(const std::string& results_path) { return results_path + ".shard.rows"; }

std::optional<FileVersion> FileVersionOf(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileVersion{static_cast<uint64_t>(st.st_size),
                     static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

Result<ShardRows> ReadShardRows(const std::string& path, const std::string& sha256,
                                std::vector<std::string> keys) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("no " + path);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return IoError("cannot read " + path);
  if (fs::Sha256OfBytes(bytes) != sha256) {
    return DataError({path, 0, 0, ""},
                     "is not the one its shard state records (its SHA-256 differs); delete it "
                     "and tala merge reads the rows instead");
  }
  // The kept rows, then a line length per row.
  uint64_t kept_size = 0;
  if (bytes.size() < sizeof kept_size) return DataError({path, 0, 0, ""}, "cut short");
  std::memcpy(&kept_size, bytes.data(), sizeof kept_size);
  std::string_view rest(bytes);
  rest.remove_prefix(sizeof kept_size);
  if (kept_size > rest.size()) return DataError({path, 0, 0, ""}, "cut short");
  TALA_ASSIGN_OR_RETURN(KeptRows kept,
                        KeptRows::Decode(rest.substr(0, kept_size), std::move(keys), path));
  rest.remove_prefix(kept_size);
  if (rest.size() != kept.size() * sizeof(uint32_t)) {
    return DataError({path, 0, 0, ""}, "its line lengths do not match its rows");
  }
  std::vector<uint32_t> line_bytes(kept.size());
  if (!rest.empty()) std::memcpy(line_bytes.data(), rest.data(), rest.size());
  return ShardRows{std::move(kept), std::move(line_bytes)};
}

void ShardFiles::ClearOlder(const EvalOptions& o) {
  if (!o.shard.active()) return;
  std::remove(ShardStatePath(o.out).c_str());
  std::remove(ShardRowsPath(o.out).c_str());
  std::remove(o.out.c_str());
}

void ShardFiles::Begin(const std::vector<MetricSummary>& metrics) {
  if (!o_.shard.active()) return;
  scratch_ = o_.out + ".partial-" + std::to_string(getpid());
  rows_.emplace(MetricKeys(metrics));
}

Status ShardFiles::Finish(const RunSummary& summary, const std::string& dataset,
                          const std::string& dataset_sha256,
                          const std::vector<int64_t>& positions) {
  std::error_code ec;
  uint64_t bytes = std::filesystem::file_size(dataset, ec);
  io::ShardState state = io::ShardStateOf(summary, o_.shard, o_.dataset, ec ? 0 : bytes);
  state.positions = positions;
  state.dataset_sha256 = dataset_sha256;
  // Shards diagnosed with other thresholds are not parts of one run.
  state.diagnosis = std::to_string(o_.diagnosis_threshold);
  for (const auto& [metric, threshold] : o_.diagnosis_thresholds) {
    state.diagnosis += "," + metric + "=" + std::to_string(threshold);
  }
  if (rows_ && rows_->size() == line_bytes_.size()) {
    state.rows_begin = rows_begin_;
    for (uint32_t n : line_bytes_) state.rows_bytes += n;
    std::string kept = rows_->Encode();
    const auto kept_size = static_cast<uint64_t>(kept.size());
    std::string file(reinterpret_cast<const char*>(&kept_size), sizeof kept_size);
    file += kept;
    if (!line_bytes_.empty()) {  // data() may be null
      file.append(reinterpret_cast<const char*>(line_bytes_.data()),
                  line_bytes_.size() * sizeof(uint32_t));
    }
    state.kept_sha256 = fs::Sha256OfBytes(file);
    // The results file as it is now (a rename keeps both): a merge trusts the rows file only
    // while the results file still is.
    const std::optional<FileVersion> version = FileVersionOf(scratch_);
    if (!version) return IoError("cannot read " + scratch_);
    state.file_bytes = version->bytes;
    state.file_modified_ns = version->modified_ns;
    TALA_RETURN_IF_ERROR(fs::WriteFileAtomically(ShardRowsPath(o_.out), file));
  }
  std::string text = io::FormatShardState(state);
  if (std::rename(scratch_.c_str(), o_.out.c_str()) != 0) {
    return IoError("cannot move the finished shard to " + o_.out);
  }
  // The state last: a shard counts as done only once it exists.
  TALA_RETURN_IF_ERROR(fs::WriteFileAtomically(ShardStatePath(o_.out), text));
  scratch_.clear();
  return OkStatus();
}

}  // namespace tala
