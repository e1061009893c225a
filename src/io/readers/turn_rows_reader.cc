#include "io/readers/turn_rows_reader.h"

#include <simdjson.h>

namespace tala::io {

namespace {

// The conversation_id and turn of a row, read from its metadata (raw JSON); empty id when the
// row is not a turn.
struct TurnKey {
  std::string id;
  bool id_is_number = false;
  double turn = 0;
  std::string problem;  // a malformed conversation_id or turn
};

TurnKey KeyOf(const Sample& s) {
  const std::string* id = nullptr;
  const std::string* turn = nullptr;
  for (const auto& [name, raw] : s.metadata) {
    if (name == "conversation_id") id = &raw;
    if (name == "turn") turn = &raw;
  }
  TurnKey key;
  if (id == nullptr || turn == nullptr) return key;
  simdjson::dom::parser parser;
  simdjson::dom::element v;
  if (parser.parse(*id).get(v) || !(v.is_string() || v.is_int64())) {
    key.problem = "conversation_id: expected a string or an integer";
    key.id = "?";
    return key;
  }
  key.id_is_number = v.is_int64();
  key.id = v.is_string() ? std::string(v.get_string().value()) : std::to_string(int64_t(v));
  simdjson::dom::parser turn_parser;
  simdjson::dom::element t;
  if (turn_parser.parse(*turn).get(t) || !t.is_number()) {
    key.problem = "turn: expected a number (the turn's place in its conversation)";
    return key;
  }
  key.turn = double(t);
  return key;
}

}  // namespace

std::optional<Result<Sample>> TurnRowsReader::Read() {
  if (held_) {
    std::optional<Result<Sample>> row = std::move(held_);
    held_.reset();
    return row;
  }
  auto row = inner_->Next();
  rows_seen_ = inner_->rows_seen();
  return row;
}

std::optional<Result<Sample>> TurnRowsReader::Next() {
  auto row = Read();
  if (!row || !row->has_value()) return row;
  TurnKey key = KeyOf(**row);
  if (key.id.empty()) return row;
  const int64_t first_line = (*row)->line;
  if (!key.problem.empty()) {
    const std::string field = key.problem.substr(0, key.problem.find(':'));
    return Result<Sample>(
        DataError({file_, first_line, 0, field}, key.problem.substr(field.size() + 2)));
  }
  if (finished_.count(key.id)) {
    return Result<Sample>(
        DataError({file_, first_line, 0, "conversation_id"},
                  "\"" + key.id +
                      "\" continues here after other rows; keep a conversation's turn rows "
                      "together, in order"));
  }
  Sample conversation;
  conversation.id = key.id;
  conversation.id_is_number = key.id_is_number;
  conversation.line = first_line;
  for (const auto& [name, raw] : (*row)->metadata) {
    if (name != "conversation_id" && name != "turn" && name != "id") {
      conversation.metadata.emplace_back(name, raw);
    }
  }
  double last_turn = 0;
  bool first = true;
  while (true) {
    Sample& t = **row;
    if (!first && t.line != 0 && key.turn <= last_turn) {
      return Result<Sample>(DataError({file_, t.line, 0, "turn"},
                                      "turn " + std::to_string(int64_t(key.turn)) +
                                          " of conversation \"" + key.id + "\" comes after turn " +
                                          std::to_string(int64_t(last_turn)) +
                                          "; give its rows in turn order"));
    }
    if (t.is_multi_turn()) {
      return Result<Sample>(
          DataError({file_, t.line, 0, "user_input"},
                    "a turn row's user_input is the turn's question (a string), not a list of "
                    "messages; give the conversation as one row, or one row per turn"));
    }
    if (t.user_input) conversation.messages.push_back({Message::Type::kHuman, *t.user_input});
    if (t.response) {
      Message ai{Message::Type::kAi, *t.response};
      ai.retrieved_contexts = std::move(t.retrieved_contexts);
      ai.retrieved_context_ids = std::move(t.retrieved_context_ids);
      ai.reference = std::move(t.reference);
      ai.verdicts = std::move(t.verdicts);
      conversation.messages.push_back(std::move(ai));
    }
    last_turn = key.turn;
    first = false;
    // The next row: another turn of this conversation, or held back for the next call.
    row = Read();
    if (!row) break;
    if (!row->has_value()) {
      held_ = std::move(row);
      break;
    }
    key = KeyOf(**row);
    if (key.id.empty() || !key.problem.empty() || key.id != conversation.id) {
      held_ = std::move(row);
      break;
    }
  }
  finished_.insert(conversation.id);
  if (conversation.messages.empty()) {
    return Result<Sample>(DataError(
        {file_, first_line, 0, "user_input"},
        "conversation \"" + conversation.id + "\" has no user_input or response in any turn row"));
  }
  // Its answer is its last ai message, as for a conversation given as one row.
  for (auto it = conversation.messages.rbegin(); it != conversation.messages.rend(); ++it) {
    if (it->type == Message::Type::kAi) {
      conversation.response = it->content;
      break;
    }
  }
  return Result<Sample>(std::move(conversation));
}

}  // namespace tala::io
