#include "io/readers/row_parser.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "core/verdict_validation.h"
#include "io/readers/field_names.h"
#include "io/readers/json_fields.h"
#include "io/readers/verdicts_parser.h"

namespace tala::io {

using simdjson::dom::element;
using simdjson::dom::element_type;

const char* JsonTypeName(element_type type) {
  switch (type) {
    case element_type::ARRAY:
      return "an array";
    case element_type::OBJECT:
      return "an object";
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE:
      return "a number";
    case element_type::STRING:
      return "a string";
    case element_type::BOOL:
      return "a boolean";
    case element_type::NULL_VALUE:
      return "null";
  }
  return "an unknown value";
}

Status JsonSyntaxError(simdjson::error_code code, const std::string& file, int64_t line) {
  std::string what;
  switch (code) {
    case simdjson::UTF8_ERROR:
      what = "invalid UTF-8 in the row; re-save the file as UTF-8";
      break;
    case simdjson::TAPE_ERROR:
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
    case simdjson::UNCLOSED_STRING:
      what = std::string("invalid or truncated JSON: ") + simdjson::error_message(code);
      break;
    case simdjson::NUMBER_ERROR:
    case simdjson::NUMBER_OUT_OF_RANGE:
      // Valid JSON that no 64-bit number holds (F18): say so, and how to keep it.
      what =
          "a number too large to read (over 64 bits, or an exponent such as 1e999999); "
          "write it as a string (\"12345678901234567890123\") to keep it as it is";
      break;
    case simdjson::STRING_ERROR:
      what = "a string with an escape tala cannot read (a lone surrogate such as \\ud800?)";
      break;
    default:
      what = std::string("invalid JSON: ") + simdjson::error_message(code);
  }
  return DataError({file, line, 0, ""}, what);
}

namespace {

// Canonical slots; a legacy alias fills the same slot as its Ragas name.
enum Slot {
  kId,
  kUserInput,
  kResponse,
  kRetrievedContexts,
  kReference,
  kReferenceContexts,
  kRetrievedContextIds,
  kReferenceContextIds,
  kRubrics,
  kReferenceToolCalls,
  kReferenceTopics,
  kVerdictsSlot,
  kSlotCount
};

struct NameToSlot {
  std::string_view name;
  Slot slot;
};
constexpr std::array<NameToSlot, 16> kNames = {{
    {"id", kId},
    {"user_input", kUserInput},
    {"question", kUserInput},
    {"response", kResponse},
    {"answer", kResponse},
    {"retrieved_contexts", kRetrievedContexts},
    {"contexts", kRetrievedContexts},
    {"reference", kReference},
    {"ground_truth", kReference},
    {"ground_truths", kReference},
    {"reference_contexts", kReferenceContexts},
    {"retrieved_context_ids", kRetrievedContextIds},
    {"reference_context_ids", kReferenceContextIds},
    {"rubrics", kRubrics},
    {"reference_tool_calls", kReferenceToolCalls},
    {"reference_topics", kReferenceTopics},
}};

}  // namespace

std::vector<std::pair<std::string, std::string>> DatasetFieldNames() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const NameToSlot& n : kNames) {
    // A slot's first name in the table is the field's own (Ragas') name.
    const NameToSlot* own = &n;
    while (own != kNames.data() && (own - 1)->slot == n.slot) --own;
    out.emplace_back(std::string(n.name), std::string(own->name));
  }
  out.emplace_back("verdicts", "verdicts");
  return out;
}

namespace {

int FindSlot(std::string_view key) {
  if (key == "verdicts") return kVerdictsSlot;
  for (const NameToSlot& n : kNames) {
    if (n.name == key) return n.slot;
  }
  return -1;
}

// A tool-call argument as Python's str() writes it (Ragas compares those strings).
std::string PythonText(element v) {
  std::string_view text;
  if (!v.get_string().get(text)) return std::string(text);
  bool flag = false;
  if (!v.get_bool().get(flag)) return flag ? "True" : "False";
  if (v.is_null()) return "None";
  double d = 0;
  if (v.type() == simdjson::dom::element_type::DOUBLE && !v.get_double().get(d)) {
    // Python prints a float with at least one decimal (7.0), else its shortest form.
    char buf[32] = "";
    for (int precision = 1; precision <= 17; ++precision) {
      std::snprintf(buf, sizeof buf, "%.*g", precision, d);
      if (std::strtod(buf, nullptr) == d) break;
    }
    std::string out = buf;
    if (out.find_first_of(".eEn") == std::string::npos) out += ".0";
    return out;
  }
  return simdjson::minify(v);
}

// [{"name": ..., "args": {...}}, ...]; args may be absent (no arguments).
Result<std::vector<ToolCall>> ReadToolCalls(const FieldContext& ctx, const std::string& field,
                                            element v) {
  std::vector<ToolCall> out;
  simdjson::dom::array calls;
  if (v.get_array().get(calls)) return Expected(ctx, field, "an array of tool calls", v);
  size_t i = 0;
  for (element call : calls) {
    std::string path = field + "[" + std::to_string(i++) + "]";
    simdjson::dom::object obj;
    if (call.get_object().get(obj)) {
      return Expected(ctx, path, "a tool call {\"name\": ..., \"args\": {...}}", call);
    }
    ToolCall tc;
    element name, args;
    if (obj["name"].get(name)) return DataError({ctx.file, ctx.line, 0, path + ".name"}, "missing");
    TALA_ASSIGN_OR_RETURN(tc.name, ReadString(ctx, path + ".name", name));
    if (!obj["args"].get(args) && !args.is_null()) {
      TALA_ASSIGN_OR_RETURN(simdjson::dom::object a, ReadObject(ctx, path + ".args", args));
      for (auto [key, value] : a) tc.args.emplace_back(std::string(key), PythonText(value));
    }
    out.push_back(std::move(tc));
  }
  return out;
}

Result<std::vector<Message>> ReadMessages(const FieldContext& ctx, element v) {
  std::vector<Message> out;
  size_t idx = 0;
  for (element item : v.get_array()) {
    std::string path = "user_input[" + std::to_string(idx++) + "]";
    TALA_ASSIGN_OR_RETURN(simdjson::dom::object obj, ReadObject(ctx, path, item));
    Message m;
    bool has_type = false;
    for (auto [key, value] : obj) {
      std::string field = path + "." + std::string(key);
      if (key == "type") {
        TALA_ASSIGN_OR_RETURN(std::string type, ReadString(ctx, field, value));
        if (type == "human")
          m.type = Message::Type::kHuman;
        else if (type == "ai")
          m.type = Message::Type::kAi;
        else if (type == "tool")
          m.type = Message::Type::kTool;
        else
          return DataError({ctx.file, ctx.line, 0, field},
                           "expected human, ai or tool, got \"" + type + "\"");
        has_type = true;
      } else if (key == "content") {
        TALA_ASSIGN_OR_RETURN(m.content, ReadString(ctx, field, value));
      } else if (key == "tool_calls") {
        if (!value.is_array()) return Expected(ctx, field, "an array of tool calls", value);
        m.tool_calls_json = simdjson::minify(value);
        TALA_ASSIGN_OR_RETURN(m.tool_calls, ReadToolCalls(ctx, field, value));
      } else if (value.is_null()) {
        continue;  // null means absent, as at the top of a row
      } else if (key == "retrieved_contexts") {
        TALA_ASSIGN_OR_RETURN(m.retrieved_contexts, ReadStringArray(ctx, field, value));
      } else if (key == "retrieved_context_ids") {
        TALA_ASSIGN_OR_RETURN(m.retrieved_context_ids, ReadIdArray(ctx, field, value));
      } else if (key == "reference") {
        TALA_ASSIGN_OR_RETURN(m.reference, ReadString(ctx, field, value));
      } else if (key == "verdicts") {
        TALA_ASSIGN_OR_RETURN(m.verdicts, ParseVerdicts(ctx, value));
      }
    }
    if (!has_type)
      return DataError({ctx.file, ctx.line, 0, path + ".type"},
                       "missing; expected human, ai or tool");
    if (m.type != Message::Type::kAi && m.carries_turn_fields()) {
      const char* which = m.retrieved_contexts      ? "retrieved_contexts"
                          : m.retrieved_context_ids ? "retrieved_context_ids"
                          : m.reference             ? "reference"
                                                    : "verdicts";
      return DataError({ctx.file, ctx.line, 0, path + "." + which},
                       "only an ai message carries the passages and reference of its turn");
    }
    if (m.retrieved_context_ids && m.retrieved_contexts &&
        m.retrieved_context_ids->size() != m.retrieved_contexts->size()) {
      return DataError({ctx.file, ctx.line, 0, path + ".retrieved_context_ids"},
                       "has " + std::to_string(m.retrieved_context_ids->size()) +
                           " ids for the message's " +
                           std::to_string(m.retrieved_contexts->size()) + " retrieved_contexts");
    }
    if (m.verdicts) {
      // A turn's verdicts must fit the turn, as a row's fit the row.
      Sample turn;
      turn.line = ctx.line;
      turn.user_input = "";
      turn.response = m.content;
      turn.retrieved_contexts = m.retrieved_contexts;
      turn.retrieved_context_ids = m.retrieved_context_ids;
      turn.reference = m.reference;
      TALA_RETURN_IF_ERROR(ValidateVerdicts(turn, *m.verdicts, ctx.file));
    }
    out.push_back(std::move(m));
  }
  if (out.empty())
    return DataError({ctx.file, ctx.line, 0, "user_input"},
                     "expected a string or a non-empty list of messages");
  return out;
}

Status ReadReferenceIds(const FieldContext& ctx, element v, Sample& s) {
  if (v.is_object()) {  // graded relevance: {id: grade}
    std::vector<std::string> ids;
    for (auto [key, value] : v.get_object()) {
      TALA_ASSIGN_OR_RETURN(double grade,
                            ReadNumber(ctx, "reference_context_ids." + std::string(key), value));
      ids.emplace_back(key);
      s.reference_context_grades[std::string(key)] = grade;
    }
    s.reference_context_ids = std::move(ids);
    return OkStatus();
  }
  TALA_ASSIGN_OR_RETURN(s.reference_context_ids, ReadIdArray(ctx, "reference_context_ids", v));
  return OkStatus();
}

Status ReadRubrics(const FieldContext& ctx, element v, Sample& s) {
  TALA_ASSIGN_OR_RETURN(simdjson::dom::object obj, ReadObject(ctx, "rubrics", v));
  std::map<std::string, std::string> rubrics;
  for (auto [key, value] : obj) {
    TALA_ASSIGN_OR_RETURN(rubrics[std::string(key)],
                          ReadString(ctx, "rubrics." + std::string(key), value));
  }
  s.rubrics = std::move(rubrics);
  return OkStatus();
}

Status FillSlot(const FieldContext& ctx, Slot slot, std::string_view name, element v, Sample& s) {
  const std::string field(name);
  switch (slot) {
    case kId: {
      std::string_view str;
      int64_t n;
      if (!v.get_string().get(str)) {
        s.id = std::string(str);
      } else if (!v.get_int64().get(n)) {
        s.id = std::to_string(n);
        s.id_is_number = true;
      } else {
        return Expected(ctx, field, "a string or an integer", v);
      }
      return OkStatus();
    }
    case kUserInput:
      if (v.is_array()) {
        TALA_ASSIGN_OR_RETURN(s.messages, ReadMessages(ctx, v));
        return OkStatus();
      }
      if (!v.is_string()) return Expected(ctx, field, "a string or a list of messages", v);
      s.user_input = std::string(v.get_string().value());
      return OkStatus();
    case kResponse: {
      TALA_ASSIGN_OR_RETURN(s.response, ReadString(ctx, field, v));
      return OkStatus();
    }
    case kRetrievedContexts: {
      TALA_ASSIGN_OR_RETURN(s.retrieved_contexts, ReadStringArray(ctx, field, v));
      return OkStatus();
    }
    case kReference: {
      if (name == "ground_truths") {  // legacy list form, joined as Ragas does
        TALA_ASSIGN_OR_RETURN(std::vector<std::string> parts, ReadStringArray(ctx, field, v));
        std::string joined;
        for (const std::string& p : parts) joined += (joined.empty() ? "" : " ") + p;
        s.reference = std::move(joined);
        return OkStatus();
      }
      TALA_ASSIGN_OR_RETURN(s.reference, ReadString(ctx, field, v));
      return OkStatus();
    }
    case kReferenceContexts: {
      TALA_ASSIGN_OR_RETURN(s.reference_contexts, ReadStringArray(ctx, field, v));
      return OkStatus();
    }
    case kRetrievedContextIds: {
      TALA_ASSIGN_OR_RETURN(s.retrieved_context_ids, ReadIdArray(ctx, field, v));
      return OkStatus();
    }
    case kReferenceContextIds:
      return ReadReferenceIds(ctx, v, s);
    case kRubrics:
      return ReadRubrics(ctx, v, s);
    case kReferenceToolCalls: {
      if (!v.is_array()) return Expected(ctx, field, "an array of tool calls", v);
      s.reference_tool_calls_json = simdjson::minify(v);
      TALA_ASSIGN_OR_RETURN(s.reference_tool_calls, ReadToolCalls(ctx, field, v));
      return OkStatus();
    }
    case kReferenceTopics: {
      TALA_ASSIGN_OR_RETURN(s.reference_topics, ReadStringArray(ctx, field, v));
      return OkStatus();
    }
    case kVerdictsSlot: {
      TALA_ASSIGN_OR_RETURN(s.verdicts, ParseVerdicts(ctx, v));
      return OkStatus();
    }
    case kSlotCount:
      break;
  }
  return Internal("unhandled field slot");
}

// A row's own "metadata" object is its metadata (N10: it came back as metadata.metadata, so
// `--human metadata.label` found nothing): its members join the row's other unread fields. A
// member named like a top-level field is the object's (the row said so explicitly).
void KeepAsMetadata(std::string_view key, element value,
                    std::vector<std::pair<std::string, std::string>>& metadata) {
  auto put = [&](std::string_view name, element v, bool replace) {
    for (auto& [have, raw] : metadata) {
      if (have != name) continue;
      if (replace) raw = simdjson::minify(v);
      return;
    }
    metadata.emplace_back(std::string(name), simdjson::minify(v));
  };
  simdjson::dom::object members;
  if (key == "metadata" && !value.get_object().get(members)) {
    for (auto [name, v] : members) put(name, v, true);
    return;
  }
  put(key, value, false);
}

}  // namespace

Result<Sample> ParseRow(element row, const RowContext& rc) {
  FieldContext ctx{rc.file, rc.line};
  simdjson::dom::object obj;
  if (row.get_object().get(obj)) return Expected(ctx, "", "a JSON object per row", row);
  Sample s;
  s.line = rc.line;
  std::array<std::string_view, kSlotCount> seen{};
  for (auto [key, value] : obj) {
    int slot = FindSlot(key);
    if (slot < 0) {
      // The assistant's role (role_adherence reads it from the row's fields): a text.
      if ((key == "chatbot_role" || key == "system_prompt") && !value.is_string()) {
        return Expected(ctx, std::string(key), "a text (the assistant's role)", value);
      }
      KeepAsMetadata(key, value, s.metadata);
      continue;
    }
    if (!seen[slot].empty()) {
      std::string msg = seen[slot] == key ? "given twice in one row"
                                          : "given together with \"" + std::string(seen[slot]) +
                                                "\"; they are the same field, give one";
      return DataError({rc.file, rc.line, 0, std::string(key)}, msg);
    }
    seen[slot] = key;
    if (value.is_null()) continue;  // null means absent, as in Ragas
    TALA_RETURN_IF_ERROR(FillSlot(ctx, static_cast<Slot>(slot), key, value, s));
  }
  if (s.id.empty() && seen[kId].empty()) {
    s.id = std::to_string(rc.row);
    s.id_is_number = true;
    s.id_generated = true;
  }
  // A conversation's answer is its final assistant turn: faithfulness and the other response
  // metrics score that turn, with the earlier turns as its question.
  if (!s.response && !s.messages.empty() && s.messages.back().type == Message::Type::kAi &&
      !s.messages.back().content.empty()) {
    s.response = s.messages.back().content;
  }
  if (s.verdicts) TALA_RETURN_IF_ERROR(ValidateVerdicts(s, *s.verdicts, rc.file));
  return s;
}

}  // namespace tala::io
