#pragma once
// A golden-set item written with an LLM judge, as the judge runtime's unit of work (CallSource):
// a synthetic item first asks for a question from its scenario (one chunk, or two linked chunks
// for a multi-hop item), then every item asks for its reference. Each reply is checked before it
// is taken: every quote must be found, character for character, in the passage it names, and a
// multi-hop question must quote each of its passages. A reply that fails the check goes back to
// the runtime as a bad reply, so the model is asked once more, quoting what was wrong; a
// question that still fails is dropped, a reference that still fails keeps its checked quotes
// only and is flagged for the reviewer. Pure (no I/O); not thread-safe.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "judges/llm/call_source.h"
#include "testset/documents.h"
#include "testset/reference_draft.h"

namespace tala::testset {

// What a synthetic question is asked to be.
struct Scenario {
  std::vector<size_t> chunks;  // one, or two for a multi-hop item
  std::string persona;
  std::string style;   // plain | vague | multi-part (typos are added afterwards, without a call)
  std::string length;  // short | medium | long
};

struct CheckedQuote {
  size_t chunk = 0;
  std::string text;
};

// The first reason a quote is not usable, or "" when each is a verbatim span of a passage it
// may name: {"context_id", "text"} objects whose id is one of `passages`' chunks.
std::string CheckQuotes(const std::vector<std::pair<std::string, std::string>>& quotes,
                        const std::vector<Chunk>& chunks, const std::vector<size_t>& passages,
                        std::vector<CheckedQuote>* checked);

class LlmItem : public judges::llm::CallSource {
 public:
  // A logged question: only its reference is drafted, from `passages` (the best chunks for it).
  LlmItem(const std::vector<Chunk>& chunks, const ChunkIndex& index, std::string question,
          std::vector<size_t> passages);
  // A synthetic item: its question from `scenario`, then its reference from the scenario's
  // chunks and the best others for the question.
  LlmItem(const std::vector<Chunk>& chunks, const ChunkIndex& index, Scenario scenario);

  std::vector<judges::llm::ModelCall> TakeReady() override;
  Status AcceptChat(const judges::llm::ModelCall& call, std::string_view reply) override;
  Status AcceptEmbeddings(const judges::llm::ModelCall& call,
                          const std::vector<std::vector<double>>& vectors) override;
  void Fail(const judges::llm::ModelCall& call, const std::string& reason) override;
  bool done() const override { return stage_ == Stage::kDone; }

  // The calls this item would make, as far as they are known before any reply (for --dry-run):
  // a synthetic item's question call, a logged question's reference call.
  judges::llm::ModelCall FirstCall() const;

  const std::optional<Scenario>& scenario() const { return scenario_; }
  const std::string& question() const { return question_; }
  // Set when the question could not be written (the item is dropped): why.
  const std::string& dropped() const { return dropped_; }
  // The reference, once drafted (nullopt when the drafting call failed for good).
  const std::optional<ReferenceDraft>& draft() const { return draft_; }
  // Set when the draft is shown with some of its quotes removed, or was not drafted: why.
  const std::string& flag() const { return flag_; }
  // A synthetic question's own quotes (checked): the spans it was written from.
  const std::vector<CheckedQuote>& question_quotes() const { return question_quotes_; }

 private:
  enum class Stage { kQuestion, kReference, kDone };
  judges::llm::ModelCall QuestionCall() const;
  judges::llm::ModelCall ReferenceCall() const;
  Status AcceptQuestion(std::string_view reply);
  Status AcceptReference(std::string_view reply);
  void StartReference();

  const std::vector<Chunk>& chunks_;
  const ChunkIndex& index_;
  std::optional<Scenario> scenario_;
  std::string question_;
  std::vector<size_t> passages_;
  Stage stage_;
  bool handed_out_ = false;
  std::string dropped_, flag_;
  std::optional<ReferenceDraft> draft_;
  std::optional<ReferenceDraft> unchecked_;  // the last draft, its bad quotes removed
  std::string unchecked_error_;
  std::vector<CheckedQuote> question_quotes_;
};

// The prompt versions an LLM-written item records ("testset_question@1+testset_reference@1").
std::string LlmPromptVersion(bool synthetic);

}  // namespace tala::testset
