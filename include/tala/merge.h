#pragma once
// Merge: shards of one run (include/tala/shard.h) back into one results file and summary, the
// same as a single process would have written and printed: rows in the dataset's order
// (concatenated for range and partition shards, interleaved by row number for hash shards),
// each row's line copied unchanged, and the summary tallied from those rows in that order by the
// tally a single run uses, so medians, intervals and the diagnosis come out identical; bad rows,
// their errors and the model-call accounting come from the shards' states. Reads each shard
// once, streaming; hash shards are read side by side. Safe to call from any thread.

#include <string>
#include <vector>

#include "tala/evaluate.h"
#include "tala/status.h"

namespace tala {

struct MergeOptions {
  // Each shard's results file (PATH, or its PATH.shard.json), in any order.
  std::vector<std::string> shards;
  std::string out = "results.jsonl";  // written to a scratch file and renamed when complete
  int max_errors_shown = 20;
  // The manifest's dataset for partition shards, which each read a file of their own; empty:
  // the first shard's.
  std::string dataset_label;
};

// kNotFound for a shard without its state (not a shard, or not finished); kInvalidArgument when
// the shards are not all the parts of one run (a part missing or given twice, other counts,
// judges, metrics, prompts or datasets); kDataError when a shard's rows disagree with its state.
Result<RunSummary> Merge(const MergeOptions& options);

}  // namespace tala
