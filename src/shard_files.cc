#include "shard_files.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

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
                          const std::vector<int64_t>& positions) {
  std::error_code ec;
  uint64_t bytes = std::filesystem::file_size(dataset, ec);
  io::ShardState state = io::ShardStateOf(summary, o_.shard, o_.dataset, ec ? 0 : bytes);
  state.positions = positions;
  std::string text = io::FormatShardState(state);
  std::string state_path = ShardStatePath(o_.out), state_scratch = state_path + ".partial";
  std::FILE* f = std::fopen(state_scratch.c_str(), "wb");
  bool written = f != nullptr && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f != nullptr && std::fclose(f) != 0) written = false;
  if (!written) {
    std::remove(state_scratch.c_str());
    return IoError("cannot write " + state_scratch);
  }
  if (std::rename(scratch_.c_str(), o_.out.c_str()) != 0 ||
      std::rename(state_scratch.c_str(), state_path.c_str()) != 0) {
    return IoError("cannot move the finished shard to " + o_.out);
  }
  scratch_.clear();
  return OkStatus();
}

}  // namespace tala
