#include "tala/sample.h"

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

}  // namespace tala
