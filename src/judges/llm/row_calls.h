#pragma once
// RowCalls: the model calls one row needs for its judge tasks, and the verdicts their replies
// make. Calls are batched across metrics: one response-claims call serves faithfulness, noise
// sensitivity and factual correctness; all chunks are rated in one call (split only past a
// size budget); the questions for response relevancy come from one call; then one embeddings
// call covers every text the row needs embedded. A small state machine: chat calls first, the
// embeddings call once they are answered. Pure (no I/O); not thread-safe.

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "judges/llm/call_source.h"
#include "judges/llm/labelled_examples.h"
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

// How a row's verdicts are asked for (issue 56). Separate: a call for the response's claims,
// one for the reference's, one for the chunks' ratings, each with the chunks it needs (the
// chunks go out up to three times). Row-first: the same calls, but each begins with the same
// frame and the row's whole data (ModelCall::row_first), so a provider's prompt cache serves
// that start to every call after the row's first, which is sent alone before its siblings.
// Combined: one call returns all three lists as parts of one reply (row_verdicts), so the
// chunks go out once; it changes what the model is asked, so it has a prompt of its own.
enum class Layout {
  kSeparate,
  kRowFirst,
  kCombined,
  kAuto,  // per row, whichever of the three the estimate below bills least
};
const char* LayoutName(Layout layout);

struct CallOptions {
  Batching batching = Batching::kBatched;
  Layout layout = Layout::kSeparate;
  int questions = 3;                  // questions generated for response relevancy
  size_t chunk_chars_budget = 24000;  // chunks rated in one call, at most this much text
  // What Layout::kAuto weighs: a call's prompt tokens (4 characters each), of which its fixed
  // start (the instructions, and the schema where the provider reads it first) is shared by every
  // call of its prompt and billed at cached_input_ratio of the input price once it reaches
  // cache_min_tokens (the provider's minimum for its prompt cache).
  double cached_input_ratio = 1.0;
  int64_t cache_min_tokens = 1024;
  // What writing a start to the cache costs, in input-price units (Anthropic: 1.25; OpenAI: 1).
  double cache_write_ratio = 1.0;
  bool schema_in_prefix = true;  // OpenAI with structured output: the schema comes first
  // People's labelled rows (a judge profile's): each task call serving a labelled metric
  // carries the ones nearest its row in "labelled_examples", and the labelled_examples prompt
  // after its own. Null: none.
  std::shared_ptr<const ExampleBank> examples;
};
// The input tokens a call is estimated to bill, in uncached-token equivalents (see CallOptions).
double EstimatedBilledTokens(const ModelCall& call, const CallOptions& options);
// The same for a row's first calls together: a row-first call after the row's first one finds
// the row's prefix in the provider's cache (once it reaches the minimum).
double EstimatedRowBilledTokens(const std::vector<ModelCall>& calls, const CallOptions& options);
// A row-first call's shared start (its frame and the row's data) in tokens of 4 characters; 0
// for other calls.
double RowFirstPrefixTokens(const ModelCall& call);

class RowCalls : public CallSource {
 public:
  RowCalls(const Sample& sample, RowPlan plan, const CallOptions& options);

  // The calls that may be sent now; each call is handed out once. Empty while earlier calls are
  // outstanding, and once done().
  std::vector<ModelCall> TakeReady() override;
  // The row's first calls as its layout has them (the ones TakeReady hands out first, and the
  // row-first siblings it holds back until the first is answered), for estimates. No state.
  std::vector<ModelCall> FirstCalls() const;
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
  // The first stage's calls under `layout` (not kAuto), with their row key and examples.
  std::vector<ModelCall> FirstCallsAs(Layout layout) const;
  // The first stage's calls under the options' layout, or for kAuto those of the layout the
  // estimate bills least for this row.
  std::vector<ModelCall> ChosenFirstCalls() const;
  std::vector<ModelCall> ChatCalls(Layout layout) const;
  // The row-first layout's calls made of the separate ones that read the chunks; nullopt when
  // fewer than two of them do, or the chunks are past the one-call budget.
  std::optional<std::vector<ModelCall>> RowFirstCalls(std::vector<ModelCall> separate) const;
  std::optional<ModelCall> EmbedCall() const;
  void MarkMissing(TaskSet tasks, const std::string& reason);
  // Adds the labelled examples nearest the row to a task call that serves a labelled metric.
  void ShowExamples(ModelCall& call) const;
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
  // Reads a kRateChunks reply (or a combined reply's chunk part) into the ratings.
  Status AcceptChunkRatings(const ModelCall& call, std::string_view reply);
  // Reads a kRowVerdicts reply: each part asked for, by the separate calls' readers.
  Status AcceptRowVerdicts(const ModelCall& call, std::string_view reply);
  // The combined call, when the layout asks for it and the row needs two or more of the
  // chunk-reading calls; nullopt otherwise (the separate calls are made).
  std::optional<ModelCall> CombinedCall() const;
  std::vector<ModelCall> SeparateChunkReadingCalls() const;
  // Row-first siblings held back until the row's first row-first call is answered, so they find
  // its prefix in the provider's cache.
  std::vector<ModelCall> held_;
  bool awaiting_prefix_ = false;

  // kRateChunks replies may arrive in parts (per chunk or per budget slice).
  std::vector<std::optional<bool>> for_reference_, for_response_;
  std::string cache_key_;  // digest of the row's texts (ModelCall::cache_key)
  mutable std::optional<ExampleBank::Query> example_query_;  // the row as the examples read it
};

// The question text a prompt shows: user_input, or a multi-turn conversation as "role: text" lines.
std::string QuestionText(const Sample& sample);

}  // namespace tala::judges::llm
