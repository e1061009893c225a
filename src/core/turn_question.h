#pragma once
// The question one turn of a conversation asks, as a reader of that turn alone needs it: the
// user's messages since the previous ai message, read after the user's previous question when
// they lean on it: they open with "and", "but", "what about"... ("and is it valid for
// transfers?") or say three words or fewer ("Why not?"). The engine scores each turn against it;
// the offline judge reads the user's asks with it. Pure; thread-safe.

#include <string>
#include <vector>

#include "tala/sample.h"

namespace tala {

// An answer of the conversation: an ai message with text (not blank; a tool call's empty ai
// message is none). Each answer is one turn.
bool IsAnswer(const Message& message);
// The position of the last answer in `messages`, or messages.size() when there is none.
size_t LastAnswer(const std::vector<Message>& messages);

// The two readings of the question of the turn whose ai message is messages[ai] (ai may be
// messages.size(): the user's messages after the last ai message).
struct TurnAsk {
  std::string alone;        // the user's messages since the previous ai message
  std::string with_before;  // "How much is a single ride - and is it valid for transfers?";
                            // empty when the user asked nothing before
  bool leans = false;       // it leans on the question before it (see above)
};
TurnAsk ReadTurnAsk(const std::vector<Message>& messages, size_t ai);

// True when the user's message says nothing but courtesy ("Thanks!", "ok, great"): such a turn
// asks nothing, so what its answer is about is not scored.
bool IsCourtesyOnly(const std::string& message);

// True when the user's message, asked after another question, leans on it (TurnAsk::leans):
// past any opening courtesy it opens with "and", "but", "what about"... or says three words or
// fewer, and it is not courtesy alone.
bool LeansOnTheQuestionBefore(const std::string& message);

// The reading a turn is scored by: with the question before it when it leans on it, else alone.
std::string TurnQuestion(const std::vector<Message>& messages, size_t ai);

}  // namespace tala
