#pragma once
// RowCalls: the model calls one row needs for its judge tasks, and the verdicts their replies
// make. Calls are batched across metrics: one response-claims call serves faithfulness, noise
// sensitivity and factual correctness; all chunks are rated in one call (split only past a
// size budget); the questions for response relevancy come from one call; then one embeddings
// call covers every text the row needs embedded. A small state machine: chat calls first, the
// embeddings call once they are answered. Pure (no I/O); not thread-safe.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "judges/llm/call_source.h"
#include "judges/llm/model_call.h"
#include "judges/llm/question_calls.h"
#include "judges/task_plan.h"
#include "tala/sample.h"
#include "tala/status.h"
#include "tala/verdicts.h"

namespace tala::judges::llm {

enum class Batching {
  kBatched,   // as few calls as possible (the default)
  kPerChunk,  // one chunk-rating call per chunk, as Ragas asks
};

struct CallOptions {
  Batching batching = Batching::kBatched;
  int questions = 3;                  // questions generated for response relevancy
  size_t chunk_chars_budget = 24000;  // chunks rated in one call, at most this much text
};

class RowCalls : public CallSource {
 public:
  RowCalls(const Sample& sample, RowPlan plan, const CallOptions& options);

  // The calls that may be sent now; each call is handed out once. Empty while earlier calls are
  // outstanding, and once done().
  std::vector<ModelCall> TakeReady() override;
  // A chat call's reply text. kBadReply naming what is wrong (not JSON, a missing field, the
  // wrong number of chunks); the verdicts are unchanged then, so the call may be retried.
  Status AcceptChat(const ModelCall& call, std::string_view reply) override;
  // The embeddings call's vectors, one per input, in order. kBadReply on a count mismatch.
  Status AcceptEmbeddings(const ModelCall& call,
                          const std::vector<std::vector<double>>& vectors) override;
  // The call failed for good: its tasks are left unanswered with `reason`.
  void Fail(const ModelCall& call, const std::string& reason) override;

  bool done() const override { return outstanding_ == 0 && stage_ == Stage::kDone; }
  const Verdicts& verdicts() const { return verdicts_; }
  Verdicts TakeVerdicts() { return std::move(verdicts_); }

 private:
  enum class Stage { kChat, kFollowUp, kEmbed, kDone };
  std::vector<ModelCall> ChatCalls() const;
  std::optional<ModelCall> EmbedCall() const;
  void MarkMissing(TaskSet tasks, const std::string& reason);
  // Names the row's language in a request for claims or questions, unless it is English.
  void TellLanguage(nlohmann::ordered_json& user) const;

  const Sample& sample_;
  TaskSet tasks_;
  CallOptions options_;
  Stage stage_ = Stage::kChat;
  int outstanding_ = 0;
  Verdicts verdicts_;
  QuestionCalls questions_;  // the metrics' own questions
  std::string language_;     // "Finnish"; empty for English
  // kRateChunks replies may arrive in parts (per chunk or per budget slice).
  std::vector<std::optional<bool>> for_reference_, for_response_;
};

// The question text a prompt shows: user_input, or a multi-turn conversation as "role: text" lines.
std::string QuestionText(const Sample& sample);

}  // namespace tala::judges::llm
