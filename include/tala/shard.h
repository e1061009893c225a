#pragma once
// Shards: one run split into parts that run anywhere (several processes, a Dask cluster) and
// merge back into exactly the results file and summary one process would have made.
//
// A shard is `tala eval --shard I/N` (or tala.evaluate(shard=(I, N))). It scores its share of
// the rows, writes an ordinary results file atomically (only a finished shard has one: a
// retried shard never duplicates rows) and beside it RESULTS.shard.json, the state a merge
// needs that the rows do not carry: the shard's place, the bad rows and their errors, each
// metric's sums and counts (checked against the rows on merge), the model-call accounting;
// and RESULTS.shard.rows, each row as the shard's tally counted it, so a merge need not parse
// the rows of a shard whose results file is as it finished. Merge (include/tala/merge.h)
// counts the shards' rows in input order with the same tally a single run uses, so medians, the
// reservoir sample and the seeded bootstrap intervals see the same values in the same order and
// come out identical.

#include <cstdint>
#include <string>

#include "tala/status.h"

namespace tala {

enum class ShardBy {
  kRange,      // contiguous parts: byte ranges of a JSON Lines file (aligned to line starts,
               // so a shard reads only its part), blocks of rows for JSON arrays and CSV
  kHash,       // rows whose id hashes to the shard: every shard reads the whole file
  kPartition,  // the dataset is already this shard's part (a Dask partition, one of many files)
};

struct ShardSpec {
  int index = 0;  // 0-based
  int count = 0;  // 0: not sharded
  ShardBy by = ShardBy::kRange;
  bool active() const { return count > 0; }
};

// "I/N" (0 <= I < N) and "range", "hash" or "partition"; kInvalidArgument naming the problem.
Result<ShardSpec> ParseShard(const std::string& index_of_count, const std::string& by);
const char* ShardByName(ShardBy by);

// The shard an id belongs to under kHash: the first 8 bytes of its SHA-256, modulo `count`.
// The same on every machine and in every version of tala.
int ShardOfId(const std::string& id, int count);

// Where a shard's state is kept, beside its results file.
std::string ShardStatePath(const std::string& results_path);

}  // namespace tala
