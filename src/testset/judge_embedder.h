#pragma once
// Embeddings through the judge runtime, for the meaning join (meaning_merge.h) and the chunk
// ranking (reference_draft.h) of a `tala testset` run with an LLM judge whose embeddings model
// is remote (--embeddings, "auto" for an OpenAI-compatible judge): the texts go in calls of up
// to kTextsPerCall, with the runtime's cache, retries, rate limits and accounting. Under
// --dry-run nothing is sent: the vectors come from `stand_in` (the offline encoder) so the run
// can be planned, and each call the run would make is added to the judge's estimate.

#include <atomic>
#include <string>
#include <vector>

#include "tala/embedder.h"
#include "testset/llm_plan.h"

namespace tala::testset {

class JudgeEmbedder : public Embedder {
 public:
  static constexpr size_t kTextsPerCall = 64;

  // `judge` and `stand_in` must outlive the embedder; `stand_in` is read only with `dry_run`,
  // and must not be null then.
  JudgeEmbedder(LlmJudge& judge, bool dry_run, Embedder* stand_in,
                const std::atomic<bool>* stop = nullptr)
      : judge_(judge), dry_run_(dry_run), stand_in_(stand_in), stop_(stop) {}

  std::string name() const override { return judge_.setup.embeddings_name; }
  // kBadReply naming the call when a call fails for good (after the runtime's retries); the
  // runtime's fatal errors (401, unreachable) and kCancelled as they are.
  Result<std::vector<std::vector<double>>> Embed(std::span<const std::string> texts) override;

 private:
  LlmJudge& judge_;
  bool dry_run_;
  Embedder* stand_in_;
  const std::atomic<bool>* stop_;
};

}  // namespace tala::testset
