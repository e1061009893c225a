#pragma once
// The files of one shard (include/tala/shard.h) as Evaluate writes them: the results, written to
// PATH.partial-PID and renamed to PATH once every row is in, then the shard's state
// (PATH.shard.json), written the same way. Until both exist the shard is not done; a failed or
// killed shard leaves neither, so running it again duplicates nothing.

#include <cstdint>
#include <string>
#include <vector>

#include "tala/evaluate.h"

namespace tala {

// kInvalidArgument for the options that are about a whole run (resume, repeats, labels,
// stdin, stdout, dry run) when `o` is a shard.
Status CheckShardOptions(const EvalOptions& o);

class ShardFiles {
 public:
  explicit ShardFiles(const EvalOptions& o) : o_(o) {}
  ~ShardFiles();
  ShardFiles(const ShardFiles&) = delete;
  ShardFiles& operator=(const ShardFiles&) = delete;
  // An older finished shard at the same path no longer stands for this run: removed first,
  // before the rows are checked, so a shard that fails leaves nothing behind.
  static void ClearOlder(const EvalOptions& o);
  void Begin();
  // Where the results are written while the run lasts.
  const std::string& writing() const { return scratch_.empty() ? o_.out : scratch_; }
  // Writes the state and moves both files into place. `dataset` is the file read (its size is
  // recorded), `positions` each row's number in it (hash shards).
  Status Finish(const RunSummary& summary, const std::string& dataset,
                const std::string& dataset_sha256, const std::vector<int64_t>& positions);

 private:
  const EvalOptions& o_;
  std::string scratch_;
};

}  // namespace tala
