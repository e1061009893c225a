#include "engine/threaded_rows.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <thread>

namespace tala {

namespace {
Status Stopped() { return {ErrorCode::kCancelled, "stopped by the user"}; }
constexpr size_t kRunRows = 8;
}  // namespace

int ResolveThreads(int requested) {
  if (requested > 0) return std::min(requested, 64);
  const unsigned cores = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp(cores, 1u, 64u));
}

Status JudgeOnThreads(const std::vector<RowScorer*>& scorers, const NextRow& next,
                      const FinishRow& finish, const std::atomic<bool>* stop, size_t batch_rows) {
  const size_t threads = std::max<size_t>(scorers.size(), 1);
  // Big enough that a slow row rarely leaves a thread idle at the end of a batch, small enough
  // that the progress line and the results file move steadily.
  if (batch_rows == 0) batch_rows = 4 * kRunRows * threads;
  auto stopped = [stop] { return stop != nullptr && stop->load(); };
  std::vector<std::unique_ptr<Sample>> batch;
  std::vector<std::optional<Result<Verdicts>>> verdicts;
  Status read_status;
  bool at_end = false;
  while (!at_end && read_status.ok()) {
    if (stopped()) return Stopped();
    batch.clear();
    while (batch.size() < batch_rows) {
      auto sample = next();
      if (!sample) {
        read_status = sample.error();
        break;
      }
      if (!*sample) {
        at_end = true;
        break;
      }
      batch.push_back(std::move(*sample));
    }
    verdicts.assign(batch.size(), std::nullopt);
    // Threads claim runs of neighbouring rows, not single rows: rows that share a question or
    // a context sit together in most datasets, and a judge caches what it read of them.
    std::atomic<size_t> cursor{0};
    auto work = [&](RowScorer* scorer) {
      size_t start = 0;
      while (!stopped() && (start = cursor.fetch_add(kRunRows)) < batch.size()) {
        for (size_t i = start; i < std::min(start + kRunRows, batch.size()) && !stopped(); ++i) {
          // A judge reports failures as statuses; anything thrown is a bug, kept on its row
          // rather than ending the process from a helper thread.
          try {
            verdicts[i].emplace(scorer->Ask(*batch[i]));
          } catch (const std::exception& e) {
            verdicts[i].emplace(
                Status{ErrorCode::kInternal, std::string("judge threw: ") + e.what()});
          }
        }
      }
    };
    std::vector<std::thread> helpers;
    for (size_t t = 1; t < threads && t < batch.size(); ++t) helpers.emplace_back(work, scorers[t]);
    work(scorers[0]);
    for (std::thread& helper : helpers) helper.join();
    for (size_t i = 0; i < batch.size(); ++i) {
      if (!verdicts[i]) return Stopped();  // not judged: left for --resume
      const Result<Verdicts>& v = *verdicts[i];
      if (!v && v.error().code() == ErrorCode::kCancelled) return v.error();
      TALA_RETURN_IF_ERROR(finish(*batch[i], v));
    }
  }
  return read_status;
}

}  // namespace tala
