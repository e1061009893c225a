#include "io/writers/row_detail.h"

#include <cmath>

#include "io/writers/json_text.h"

namespace tala::io {

namespace {

void Key(std::string& out, bool& first, const char* key) {
  if (!first) out += ',';
  first = false;
  AppendJsonString(out, key);
  out += ':';
}

void Bool(std::string& out, const std::optional<bool>& b) {
  out += !b ? "null" : *b ? "true" : "false";
}

void Strings(std::string& out, const std::vector<std::string>& list) {
  out += '[';
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) out += ',';
    AppendJsonString(out, list[i]);
  }
  out += ']';
}

void Bools(std::string& out, const std::vector<bool>& list) {
  out += '[';
  for (size_t i = 0; i < list.size(); ++i)
    out += (i ? "," : "") + std::string(list[i] ? "true" : "false");
  out += ']';
}

void Number(std::string& out, const std::optional<double>& v) {
  if (v && std::isfinite(*v)) {
    AppendJsonNumber(out, *v);
  } else {
    out += "null";
  }
}

void Claims(std::string& out, const std::vector<ClaimVerdict>& claims) {
  out += '[';
  for (size_t i = 0; i < claims.size(); ++i) {
    const ClaimVerdict& c = claims[i];
    if (i) out += ',';
    out += "{\"text\":";
    AppendJsonString(out, c.text);
    out += ",\"supported\":";
    Bool(out, c.supported);
    out += ",\"supported_by\":[";
    for (size_t k = 0; k < c.supported_by.size(); ++k)
      out += (k ? "," : "") + std::to_string(c.supported_by[k]);
    out += "],\"correct\":";
    Bool(out, c.correct);
    if (c.support_score) {
      out += ",\"support_score\":";
      Number(out, c.support_score);
    }
    out += ",\"reason\":";
    AppendJsonString(out, c.reason);
    if (!c.unchecked.empty()) {
      out += ",\"unchecked\":";
      AppendJsonString(out, c.unchecked);
    }
    out += '}';
  }
  out += ']';
}

void ReferenceClaims(std::string& out, const std::vector<ReferenceClaim>& claims) {
  out += '[';
  for (size_t i = 0; i < claims.size(); ++i) {
    const ReferenceClaim& c = claims[i];
    if (i) out += ',';
    out += "{\"text\":";
    AppendJsonString(out, c.text);
    out += ",\"attributed\":";
    Bool(out, c.attributed);
    out += ",\"in_response\":";
    Bool(out, c.in_response);
    out += ",\"reason\":";
    AppendJsonString(out, c.reason);
    out += '}';
  }
  out += ']';
}

// In the replay format, so a results row's answers can be replayed as they are.
void Answers(std::string& out, const std::map<std::string, JudgedAnswer>& answers) {
  out += '{';
  bool first = true;
  for (const auto& [key, a] : answers) {
    Key(out, first, key.c_str());
    out += "{\"values\":[";
    for (size_t i = 0; i < a.values.size(); ++i) {
      if (i) out += ',';
      Number(out, a.values[i]);
    }
    out += ']';
    if (a.weighted) {
      out += ",\"weighted\":";
      Number(out, a.weighted);
    }
    if (!a.label.empty()) {
      out += ",\"label\":";
      AppendJsonString(out, a.label);
    }
    if (!a.items.empty()) {
      out += ",\"items\":[";
      for (size_t i = 0; i < a.items.size(); ++i) {
        out += i ? ",{\"text\":" : "{\"text\":";
        AppendJsonString(out, a.items[i].text);
        for (const auto& [flag, on] : a.items[i].flags) {
          out += ',';
          AppendJsonString(out, flag);
          out += on ? ":true" : ":false";
        }
        out += '}';
      }
      out += ']';
    }
    out += ",\"reason\":";
    AppendJsonString(out, a.reason);
    out += '}';
  }
  out += '}';
}

}  // namespace

void AppendRowDetail(std::string& out, const Sample& s, const Verdicts& v) {
  out += ",\"inputs\":{";
  bool first = true;
  Key(out, first, "user_input");
  std::string question = s.user_input.value_or("");
  for (const Message& m : s.messages) question += (question.empty() ? "" : "\n") + m.content;
  AppendJsonString(out, question);
  if (s.response) {
    Key(out, first, "response");
    AppendJsonString(out, *s.response);
  }
  if (s.reference) {
    Key(out, first, "reference");
    AppendJsonString(out, *s.reference);
  }
  if (s.retrieved_contexts) {
    Key(out, first, "retrieved_contexts");
    Strings(out, *s.retrieved_contexts);
  }
  out += "},\"verdicts\":{";
  first = true;
  if (v.response_claims) {
    Key(out, first, "response_claims");
    Claims(out, *v.response_claims);
  }
  if (v.reference_claims) {
    Key(out, first, "reference_claims");
    ReferenceClaims(out, *v.reference_claims);
  }
  if (v.chunk_relevant) {
    Key(out, first, "chunk_relevant");
    Bools(out, *v.chunk_relevant);
  }
  if (v.chunk_relevant_to_response) {
    Key(out, first, "chunk_relevant_to_response");
    Bools(out, *v.chunk_relevant_to_response);
  }
  if (v.generated_questions) {
    Key(out, first, "generated_questions");
    out += '[';
    for (size_t i = 0; i < v.generated_questions->size(); ++i) {
      const GeneratedQuestion& q = (*v.generated_questions)[i];
      out += i ? ",{\"text\":" : "{\"text\":";
      AppendJsonString(out, q.text);
      out +=
          std::string(",\"noncommittal\":") + (q.noncommittal ? "true" : "false") + ",\"cosine\":";
      Number(out, q.cosine);
      if (!q.reading.empty()) {
        out += ",\"reading\":";
        AppendJsonString(out, q.reading);
      }
      out += '}';
    }
    out += ']';
  }
  if (v.reference_entities) {
    Key(out, first, "reference_entities");
    Strings(out, *v.reference_entities);
  }
  if (v.context_entities) {
    Key(out, first, "context_entities");
    Strings(out, *v.context_entities);
  }
  if (v.response_reference_similarity) {
    Key(out, first, "response_reference_similarity");
    Number(out, v.response_reference_similarity);
  }
  if (!v.answers.empty()) {
    Key(out, first, "answers");
    Answers(out, v.answers);
  }
  out += '}';
}

}  // namespace tala::io
