#include "tala/sample.h"

#include "core/hash.h"

namespace tala {

const char* FieldName(Field f) {
  switch (f) {
    case Field::kUserInput:
      return "user_input";
    case Field::kResponse:
      return "response";
    case Field::kRetrievedContexts:
      return "retrieved_contexts";
    case Field::kReference:
      return "reference";
    case Field::kReferenceContexts:
      return "reference_contexts";
    case Field::kRetrievedContextIds:
      return "retrieved_context_ids";
    case Field::kReferenceContextIds:
      return "reference_context_ids";
    case Field::kRubrics:
      return "rubrics";
    case Field::kReferenceToolCalls:
      return "reference_tool_calls";
    case Field::kReferenceTopics:
      return "reference_topics";
    case Field::kVerdicts:
      return "verdicts";
  }
  return "?";
}

const std::vector<Field>& AllFields() {
  static const std::vector<Field> kAll = {
      Field::kUserInput,           Field::kResponse,          Field::kRetrievedContexts,
      Field::kReference,           Field::kReferenceContexts, Field::kRetrievedContextIds,
      Field::kReferenceContextIds, Field::kRubrics,           Field::kReferenceToolCalls,
      Field::kReferenceTopics,     Field::kVerdicts};
  return kAll;
}

std::string FieldSetNames(FieldSet set) {
  std::string out;
  for (Field f : AllFields()) {
    if (!Contains(set, f)) continue;
    if (!out.empty()) out += ", ";
    out += FieldName(f);
  }
  return out;
}

bool Sample::has_turn_fields() const {
  for (const Message& m : messages) {
    if (m.carries_turn_fields()) return true;
  }
  return false;
}

FieldSet Sample::fields() const {
  FieldSet set = 0;
  if (user_input || !messages.empty()) set = set | Field::kUserInput;
  if (response) set = set | Field::kResponse;
  if (retrieved_contexts) set = set | Field::kRetrievedContexts;
  if (reference) set = set | Field::kReference;
  if (reference_contexts) set = set | Field::kReferenceContexts;
  if (retrieved_context_ids) set = set | Field::kRetrievedContextIds;
  if (reference_context_ids) set = set | Field::kReferenceContextIds;
  if (rubrics) set = set | Field::kRubrics;
  if (reference_tool_calls_json) set = set | Field::kReferenceToolCalls;
  if (reference_topics) set = set | Field::kReferenceTopics;
  if (verdicts) set = set | Field::kVerdicts;
  return set;
}

namespace {

// Length-prefixed, so no two different rows serialise alike.
void Put(std::string& out, const std::string& text) {
  out += std::to_string(text.size());
  out += ':';
  out += text;
}
void Put(std::string& out, const std::optional<std::string>& text) {
  if (!text) {
    out += '-';
    return;
  }
  Put(out, *text);
}
void Put(std::string& out, const std::optional<std::vector<std::string>>& list) {
  if (!list) {
    out += '-';
    return;
  }
  out += '[' + std::to_string(list->size());
  for (const std::string& s : *list) Put(out, s);
}

}  // namespace

std::string InputDigest(const Sample& s) {
  std::string text;
  Put(text, s.user_input);
  for (const Message& m : s.messages) {
    text += static_cast<char>('0' + static_cast<int>(m.type));
    Put(text, m.content);
    Put(text, m.tool_calls_json);
  }
  Put(text, s.response);
  Put(text, s.retrieved_contexts);
  Put(text, s.reference);
  Put(text, s.reference_contexts);
  Put(text, s.retrieved_context_ids);
  Put(text, s.reference_context_ids);
  for (const auto& [id, grade] : s.reference_context_grades) {
    Put(text, id);
    Put(text, std::to_string(grade));  // NOLINT
  }
  if (s.rubrics) {
    for (const auto& [k, v] : *s.rubrics) {
      Put(text, k);
      Put(text, v);
    }
  }
  Put(text, s.reference_tool_calls_json);
  Put(text, s.reference_topics);
  // A conversation's per-turn passages and references, only where given, so the digest of
  // every other row is what it was.
  if (s.has_turn_fields()) {
    text += "turns";
    for (const Message& m : s.messages) {
      Put(text, m.retrieved_contexts);
      Put(text, m.retrieved_context_ids);
      Put(text, m.reference);
    }
  }
  return Sha256Hex(text).substr(0, 16);
}

std::string QuestionDigest(const Sample& s) {
  std::string text;
  Put(text, s.user_input);
  for (const Message& m : s.messages) Put(text, m.content);
  Put(text, s.reference);
  return Sha256Hex(text).substr(0, 16);
}

}  // namespace tala
