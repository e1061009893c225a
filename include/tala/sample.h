#pragma once
// Sample: one logged RAG interaction with the Ragas field names, as read from a dataset row.
// Fields the row does not give are std::nullopt. Every other field of the row is kept verbatim
// in `metadata` and written to the results unchanged. Plain value type.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tala/verdicts.h"

namespace tala {

// The sample fields a metric can require; a bit set says which a row has.
enum class Field : uint32_t {
  kUserInput = 1u << 0,
  kResponse = 1u << 1,
  kRetrievedContexts = 1u << 2,
  kReference = 1u << 3,
  kReferenceContexts = 1u << 4,
  kRetrievedContextIds = 1u << 5,
  kReferenceContextIds = 1u << 6,
  kRubrics = 1u << 7,
  kReferenceToolCalls = 1u << 8,
  kReferenceTopics = 1u << 9,
  kVerdicts = 1u << 10,
};
using FieldSet = uint32_t;
constexpr FieldSet operator|(Field a, Field b) {
  return static_cast<FieldSet>(a) | static_cast<FieldSet>(b);
}
constexpr FieldSet operator|(FieldSet a, Field b) { return a | static_cast<FieldSet>(b); }
constexpr bool Contains(FieldSet set, Field f) { return (set & static_cast<FieldSet>(f)) != 0; }

// The wire name of a field ("user_input") and every field in declaration order.
const char* FieldName(Field f);
const std::vector<Field>& AllFields();
std::string FieldSetNames(FieldSet set);  // "user_input, response"

// A tool call, {"name": ..., "args": {...}} as in Ragas. Argument values are kept as the text
// Python's str() gives them (a string as is, 75 as "75", true as "True"), so that the exact-match
// comparison of tool-call metrics sees what Ragas sees; lists and objects as minified JSON.
struct ToolCall {
  std::string name;
  std::vector<std::pair<std::string, std::string>> args;  // in the call's order
};

// A multi-turn message: {type: human|ai|tool, content, tool_calls?}.
struct Message {
  enum class Type { kHuman, kAi, kTool };
  Type type = Type::kHuman;
  std::string content;
  std::string tool_calls_json;  // raw JSON array, empty when absent
  std::vector<ToolCall> tool_calls;
  // What an ai message of a conversation was generated from, and what it should have said: the
  // turn's own passages (ranked) and reference. Absent on other messages.
  std::optional<std::vector<std::string>> retrieved_contexts;
  std::optional<std::vector<std::string>> retrieved_context_ids;
  std::optional<std::string> reference;
  std::optional<Verdicts> verdicts;  // hand-written verdicts on this turn (the replay judge)
  bool carries_turn_fields() const {
    return retrieved_contexts || retrieved_context_ids || reference || verdicts;
  }
};

struct Sample {
  std::string id;             // as given, or the 1-based row number
  bool id_is_number = false;  // write it back as a JSON number
  bool id_generated = false;  // the row had no id: `id` is its row number
  int64_t line = 0;           // 1-based line of the row in its file

  std::optional<std::string> user_input;  // single-turn question
  std::vector<Message> messages;          // multi-turn conversation (user_input as a list)
  std::optional<std::string> response;
  std::optional<std::vector<std::string>> retrieved_contexts;  // ranked
  std::optional<std::string> reference;
  std::optional<std::vector<std::string>> reference_contexts;
  std::optional<std::vector<std::string>> retrieved_context_ids;  // ranked
  std::optional<std::vector<std::string>> reference_context_ids;
  std::map<std::string, double> reference_context_grades;  // graded relevance, when given
  std::optional<std::map<std::string, std::string>> rubrics;
  std::optional<std::string> reference_tool_calls_json;
  std::optional<std::vector<ToolCall>> reference_tool_calls;
  std::optional<std::vector<std::string>> reference_topics;

  std::optional<Verdicts> verdicts;  // hand-written verdicts (the replay judge)

  // A turn of a conversation, scored on its own (engine/conversation_turns.h): the 1-based
  // number of its ai message among the conversation's ai messages, how many there are, and the
  // whole conversation row it came from. 0, 0 and null for a row read from a file.
  int turn = 0;
  int turns = 0;
  std::shared_ptr<const Sample> conversation;

  // Every other field of the row: name -> raw JSON text, in input order.
  std::vector<std::pair<std::string, std::string>> metadata;

  bool is_multi_turn() const { return !messages.empty(); }
  // A conversation whose ai messages carry their own passages or references: scored turn by
  // turn by the conversation metrics (turn_faithfulness...).
  bool has_turn_fields() const;
  FieldSet fields() const;
};

// A short digest of everything in the row a metric or judge reads (not its id, metadata or
// hand-written verdicts): a resumed run re-scores a kept row whose digest changed.
std::string InputDigest(const Sample& sample);
// A digest of the question (and reference): what pairs rows of two runs when the data has no
// ids (most Ragas datasets), since row numbers pair nothing if the order changed.
std::string QuestionDigest(const Sample& sample);

}  // namespace tala
