#include "engine/shard_files.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "fs/atomic_file.h"
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

void ShardFiles::ClearOlder(const EvalOptions& o) {
  if (!o.shard.active()) return;
  std::remove(ShardStatePath(o.out).c_str());
  std::remove(o.out.c_str());
}

void ShardFiles::Begin() {
  if (o_.shard.active()) scratch_ = o_.out + ".partial-" + std::to_string(getpid());
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
