#pragma once
// What the offline judge reads in a conversation, with no model:
// - knowledge retention: the user's first-person statements before an answer ("I travel on
//   Saturday", "we are two adults") against that answer. The answer forgets when, speaking to
//   the user ("you", "your"), it gives a different number, weekday or month of something the
//   statement is about ("since you travel on Monday"), or asks a question the statement already
//   answers ("How many of you are travelling?").
// - the user's asks: each turn's question (core/turn_question.h) that asks or requests
//   something, for conversation_completeness, which the judge reads against the answers after it.
// English only. Pure; thread-safe apart from the stemmer passed in.

#include <string>
#include <vector>

#include "core/text/stemmer.h"
#include "tala/sample.h"

namespace tala::judges::offline {

struct RetentionReading {
  bool kept = true;
  int facts = 0;       // the user's statements read
  std::string reason;  // what was read: the statement and the answer's sentence that forgets it
};

// The answer messages[ai] against the user's statements before it.
RetentionReading ReadRetention(const std::vector<Message>& messages, size_t ai,
                               text::Stemmer& stemmer);

struct UserAsk {
  int turn = 0;          // 1-based turn whose question holds it; turns + 1 after the last answer
  size_t first_answer;   // the first message that may meet it (the turn's ai message)
  std::string question;  // the turn's question as read
  std::string other;     // its other reading (alone, or after the question before it); may be ""
};

// The asks of a conversation, in order: each turn's question that asks ("?") or requests
// ("can you", "please", "tell me", "I need" ...), and the user's messages after the last answer.
std::vector<UserAsk> UserAsks(const std::vector<Message>& messages);

}  // namespace tala::judges::offline
