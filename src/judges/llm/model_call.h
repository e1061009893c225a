#pragma once
// One request to a model, as plain data: which prompt, which messages, which reply shape, and
// which judge tasks its answer fills. Built by RowCalls, sent by the runtime, keyed in the cache.

#include <string>
#include <vector>

#include "tala/judge.h"

namespace tala::judges::llm {

enum class CallKind {
  kResponseClaims,     // split the response into claims; support by chunk, correctness
  kReferenceClaims,    // split the reference into claims; attribution, presence in the response
  kRateChunks,         // usefulness of each chunk for the reference and/or the response
  kGenerateQuestions,  // questions the response answers, and a noncommittal flag
  kExtractEntities,    // named entities of the reference and of the context
  kRowVerdicts,        // the combined layout: response claims, reference claims and chunk
                       // ratings in one call, so the chunks are sent once
  kEmbed,              // embeddings of a list of texts (one request)
  // The metrics' own questions (judges/llm/question_calls.h):
  kCriteria,          // aspects, criteria, rubrics, user metrics of a row: all in one call
  kRating,            // one template of an NVIDIA rating (two calls per question)
  kGoal,              // the agent's goal, end state and whether it was reached
  kTopics,            // the conversation's topics: answered, within the reference topics
  kSqlEquivalence,    // do two queries return the same result
  kSummaryQuestions,  // key phrases and yes/no questions from a summary's source text
  kSummaryAnswers,    // which of those questions the summary answers (after kSummaryQuestions)
  kGEvalSteps,        // evaluation steps for a criterion (the same request for every row)
  kGEvalScore,        // a 1-10 score by those steps (after kGEvalSteps)
  // Writing a golden set (testset/):
  kTestsetQuestion,   // a question from a scenario (one chunk, or two for a multi-hop item)
  kTestsetReference,  // a question's reference, its contexts, verbatim quotes, answerability
  // Simulating a user (tala run --simulate):
  kSimulateUser,  // the user's next message, or that the conversation is over
};
// The prompt name ("rate_chunks") or "embeddings".
const char* CallKindName(CallKind kind);

struct ChatMessage {
  std::string role;  // "system" | "user"
  std::string content;
  // The provider's prompt cache may keep the prompt up to the end of this message (the
  // row-first layout's row data): Anthropic gets a cache_control breakpoint there.
  bool cache_break = false;
};

struct ModelCall {
  CallKind kind = CallKind::kResponseClaims;
  TaskSet tasks = 0;    // the judge tasks this call's answer fills
  int chunk_begin = 0;  // kRateChunks: the chunks rated, [chunk_begin, chunk_end)
  int chunk_end = 0;
  int questions = 0;      // kGenerateQuestions: how many were asked for
  std::string prompt_id;  // "rate_chunks@2"; empty for kEmbed
  std::vector<ChatMessage> messages;
  std::string schema;  // JSON schema of the reply, for structured output
  // A row's calls share this key (a digest of the row's texts): OpenAI's prompt_cache_key, so
  // they reach the same prompt cache. Not part of what the model sees, nor of tala's cache key.
  std::string cache_key;
  // The row-first layout: messages[0] is the frame every such call shares and messages[1] the
  // row's data, the same for each of the row's calls, so a provider's cache serves that prefix
  // to all but the first; the task's instructions and settings come after it. No schema is sent
  // first (it would differ by task and come before the prefix); the instructions give the shape.
  bool row_first = false;
  std::vector<std::string> inputs;  // kEmbed: the texts
  // The metrics' own questions this call answers (their keys), and which of their answers:
  std::vector<std::string> question_keys;
  int vote = 0;       // kCriteria: the round of verdicts (0: the first; strictness asks more)
  int template_ = 0;  // kRating: the template (0 or 1)
  // Asked of the server: several answers in one request (kCriteria with strictness: one choice
  // per round of verdicts), and log-probabilities (kGEvalScore). Such a call's reply reaches
  // RowCalls packed (PackReply) with the extra choices and the number tokens.
  int choices = 1;
  bool logprobs = false;
};

// The name calls are counted under: the prompt's name ("rate_answer_accuracy_a"), or
// "embeddings".
std::string PromptName(const ModelCall& call);

}  // namespace tala::judges::llm
