#pragma once
// Rows judged on several threads at once, each thread with its own judge, and finished (scored,
// written, tallied) on the calling thread in input order. It is for a judge that runs in-process
// (the offline judge), whose work is the run's CPU time; an LLM judge's rows wait on the network
// and go through the runtime instead. A batch of rows is read, judged by every thread, then
// finished in order, so the results file is byte for byte the one one thread writes.

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "engine/row_scorer.h"

namespace tala {

// The next row to score; null at the end of the input.
using NextRow = std::function<Result<std::unique_ptr<Sample>>()>;
// Scores, writes and tallies one judged row; called in input order on the calling thread.
using FinishRow = std::function<Status(const Sample&, const Result<Verdicts>&)>;

// Judges every row `next` gives with one RowScorer per thread (scorers[0] on the calling
// thread), `batch_rows` rows at a time. A read error still finishes the rows read before it,
// then is returned. With `stop` set (Ctrl-C), rows not yet judged are left unwritten, so that
// --resume scores them; kCancelled is returned, as it is when a judge answers kCancelled.
Status JudgeOnThreads(const std::vector<RowScorer*>& scorers, const NextRow& next,
                      const FinishRow& finish, const std::atomic<bool>* stop,
                      size_t batch_rows = 0);

// How many threads --threads N means: N, or one per core for 0, at most 64.
int ResolveThreads(int requested);

}  // namespace tala
