#pragma once
// Conversations scored turn by turn. A conversation row (user_input a list of messages whose ai
// messages carry their own retrieved_contexts or reference) becomes one Sample per ai message:
// that message as the response, its passages and reference, its question read with the turns
// before it, and the conversation up to it as the messages (what LLM judges read). Each turn is
// judged as a row is, once, so a conversation of n turns costs n rows' calls, and an earlier
// turn's calls are the same whatever came after it (the cache serves them when a conversation
// grows). The assembler joins the turns' scores back into one result per conversation: a
// per-turn metric's value is the mean over its turns, any other metric's is its last turn's.
// The turn's question is core/turn_question.h's. Not thread-safe.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/writers/results_jsonl_writer.h"
#include "tala/metric.h"
#include "tala/sample.h"

namespace tala {

// True when some metric scores conversations by their turns (ConversationScope not kRow).
bool ScoresTurns(const std::vector<std::unique_ptr<Metric>>& metrics);

// The turns of `conversation`, in order; empty when it has no ai message with text. The last
// turn carries the conversation's row-level fields (reference_topics, rubrics, tool calls...)
// and all of its messages, so row metrics score the conversation's last answer as before.
std::vector<std::unique_ptr<Sample>> TurnSamples(const std::shared_ptr<const Sample>& conversation);

// The samples a row is judged as: with `by_turns` (ScoresTurns), a conversation's turns (each
// holding the conversation, its Sample::conversation); else, or for a conversation with no
// answer to score turn by turn, the row itself.
std::vector<std::unique_ptr<Sample>> SamplesToJudge(std::unique_ptr<Sample> row, bool by_turns);

class ConversationAssembler {
 public:
  explicit ConversationAssembler(const std::vector<std::unique_ptr<Metric>>& metrics)
      : metrics_(metrics) {}
  using Done = std::function<Status(io::RowResult&)>;
  // Takes a turn's result (its sample a turn of TurnSamples); when it is its conversation's
  // last outstanding turn, calls `done` with the conversation's result. Turns may come in any
  // order.
  Status Add(const io::RowResult& turn, const Done& done);
  // Conversations with turns still outstanding (a stopped run): none is written half-scored.
  size_t pending() const { return pending_.size(); }

 private:
  struct Pending {
    std::shared_ptr<const Sample> conversation;
    std::map<int, io::TurnResult> turns;  // by turn number
    std::map<int, io::RowScore> last;     // the last turn's scores, by metric position
    Status status;
  };
  const std::vector<std::unique_ptr<Metric>>& metrics_;
  std::map<const Sample*, Pending> pending_;
};

}  // namespace tala
