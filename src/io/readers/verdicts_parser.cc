#include "io/readers/verdicts_parser.h"

#include <string_view>

namespace tala::io {

using simdjson::dom::element;
using simdjson::dom::object;

namespace {

constexpr std::string_view kPrefix = "verdicts.";

std::string Path(std::string_view a, size_t idx, std::string_view b) {
  return std::string(kPrefix) + std::string(a) + "[" + std::to_string(idx) + "]." + std::string(b);
}

// Runs `fn(key, value, field_path)` on each member, rejecting keys outside `known`.
template <typename Fn>
Status ForEachMember(const FieldContext& ctx, const std::string& path, object obj,
                     std::initializer_list<std::string_view> known, Fn fn) {
  for (auto [key, value] : obj) {
    bool ok = false;
    for (std::string_view k : known) ok = ok || k == key;
    if (!ok) {
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return DataError({ctx.file, ctx.line, 0, path + std::string(key)},
                       "unknown verdict field; expected one of: " + list);
    }
    TALA_RETURN_IF_ERROR(fn(key, value, path + std::string(key)));
  }
  return OkStatus();
}

Result<std::vector<int>> ReadIndices(const FieldContext& ctx, const std::string& field, element v) {
  TALA_ASSIGN_OR_RETURN(std::vector<double> numbers, ReadNumberArray(ctx, field, v));
  std::vector<int> out;
  for (double d : numbers) {
    if (d != static_cast<int>(d)) {
      return DataError({ctx.file, ctx.line, 0, field}, "expected integer chunk indices");
    }
    out.push_back(static_cast<int>(d));
  }
  return out;
}

Result<std::vector<ClaimVerdict>> ReadResponseClaims(const FieldContext& ctx, element v) {
  simdjson::dom::array arr;
  if (v.get_array().get(arr)) return Expected(ctx, "verdicts.response_claims", "an array", v);
  std::vector<ClaimVerdict> claims;
  size_t idx = 0;
  for (element item : arr) {
    std::string path = Path("response_claims", idx, "");
    TALA_ASSIGN_OR_RETURN(object obj, ReadObject(ctx, path.substr(0, path.size() - 1), item));
    ClaimVerdict c;
    TALA_RETURN_IF_ERROR(ForEachMember(
        ctx, path, obj, {"text", "supported", "supported_by", "correct", "reason", "unchecked"},
        [&](std::string_view key, element value, const std::string& field) -> Status {
          if (key == "text") {
            TALA_ASSIGN_OR_RETURN(c.text, ReadString(ctx, field, value));
          }
          if (key == "unchecked") {
            TALA_ASSIGN_OR_RETURN(c.unchecked, ReadString(ctx, field, value));
          }
          if (key == "reason") {
            TALA_ASSIGN_OR_RETURN(c.reason, ReadString(ctx, field, value));
          }
          if (key == "supported") {
            TALA_ASSIGN_OR_RETURN(c.supported, ReadFlag(ctx, field, value));
          }
          if (key == "correct") {
            TALA_ASSIGN_OR_RETURN(c.correct, ReadFlag(ctx, field, value));
          }
          if (key == "supported_by") {
            TALA_ASSIGN_OR_RETURN(c.supported_by, ReadIndices(ctx, field, value));
          }
          return OkStatus();
        }));
    // A claim with supporting chunks and no explicit flag is supported; saying both must agree.
    if (!c.supported && !c.supported_by.empty()) c.supported = true;
    if (c.supported == false && !c.supported_by.empty()) {
      return DataError({ctx.file, ctx.line, 0, path + "supported_by"},
                       "lists supporting chunks but \"supported\" is false");
    }
    claims.push_back(std::move(c));
    ++idx;
  }
  return claims;
}

Result<std::vector<ReferenceClaim>> ReadReferenceClaims(const FieldContext& ctx, element v) {
  simdjson::dom::array arr;
  if (v.get_array().get(arr)) return Expected(ctx, "verdicts.reference_claims", "an array", v);
  std::vector<ReferenceClaim> claims;
  size_t idx = 0;
  for (element item : arr) {
    std::string path = Path("reference_claims", idx, "");
    TALA_ASSIGN_OR_RETURN(object obj, ReadObject(ctx, path.substr(0, path.size() - 1), item));
    ReferenceClaim c;
    TALA_RETURN_IF_ERROR(
        ForEachMember(ctx, path, obj, {"text", "attributed", "in_response", "reason"},
                      [&](std::string_view key, element value, const std::string& field) -> Status {
                        if (key == "text") {
                          TALA_ASSIGN_OR_RETURN(c.text, ReadString(ctx, field, value));
                        }
                        if (key == "reason") {
                          TALA_ASSIGN_OR_RETURN(c.reason, ReadString(ctx, field, value));
                        }
                        if (key == "attributed") {
                          TALA_ASSIGN_OR_RETURN(c.attributed, ReadFlag(ctx, field, value));
                        }
                        if (key == "in_response") {
                          TALA_ASSIGN_OR_RETURN(c.in_response, ReadFlag(ctx, field, value));
                        }
                        return OkStatus();
                      }));
    claims.push_back(std::move(c));
    ++idx;
  }
  return claims;
}

Result<std::vector<GeneratedQuestion>> ReadQuestions(const FieldContext& ctx, element v) {
  simdjson::dom::array arr;
  if (v.get_array().get(arr)) return Expected(ctx, "verdicts.generated_questions", "an array", v);
  std::vector<GeneratedQuestion> questions;
  size_t idx = 0;
  for (element item : arr) {
    std::string path = Path("generated_questions", idx, "");
    TALA_ASSIGN_OR_RETURN(object obj, ReadObject(ctx, path.substr(0, path.size() - 1), item));
    GeneratedQuestion q;
    TALA_RETURN_IF_ERROR(
        ForEachMember(ctx, path, obj, {"text", "noncommittal", "cosine", "reading"},
                      [&](std::string_view key, element value, const std::string& field) -> Status {
                        if (key == "text") {
                          TALA_ASSIGN_OR_RETURN(q.text, ReadString(ctx, field, value));
                        }
                        if (key == "noncommittal") {
                          TALA_ASSIGN_OR_RETURN(q.noncommittal, ReadFlag(ctx, field, value));
                        }
                        if (key == "cosine") {
                          TALA_ASSIGN_OR_RETURN(q.cosine, ReadNumber(ctx, field, value));
                        }
                        if (key == "reading") {
                          TALA_ASSIGN_OR_RETURN(q.reading, ReadString(ctx, field, value));
                        }
                        return OkStatus();
                      }));
    if (q.cosine && (*q.cosine < -1.0000001 || *q.cosine > 1.0000001)) {
      return DataError({ctx.file, ctx.line, 0, path + "cosine"}, "a cosine lies in [-1, 1]");
    }
    questions.push_back(std::move(q));
    ++idx;
  }
  return questions;
}

Status ReadEmbeddings(const FieldContext& ctx, element v, Verdicts& out) {
  TALA_ASSIGN_OR_RETURN(object obj, ReadObject(ctx, "verdicts.embeddings", v));
  for (auto [key, value] : obj) {
    TALA_ASSIGN_OR_RETURN(out.embeddings[std::string(key)],
                          ReadNumberArray(ctx, "verdicts.embeddings", value));
  }
  return OkStatus();
}

// "answers": {"KEY": {"values": [1, 0, 1], "reason": "...", "items": [{"text": "...",
// "answered": true}], "label": "pass", "weighted": 7.4}}; "value": x is short for "values": [x].
Result<JudgedAnswer> ReadAnswer(const FieldContext& ctx, const std::string& path, element v) {
  TALA_ASSIGN_OR_RETURN(object obj, ReadObject(ctx, path, v));
  JudgedAnswer a;
  TALA_RETURN_IF_ERROR(ForEachMember(
      ctx, path + ".", obj, {"values", "value", "reason", "items", "label", "weighted"},
      [&](std::string_view key, element value, const std::string& field) -> Status {
        if (key == "values") {
          TALA_ASSIGN_OR_RETURN(a.values, ReadNumberArray(ctx, field, value));
        } else if (key == "value") {
          TALA_ASSIGN_OR_RETURN(double d, ReadNumber(ctx, field, value));
          a.values = {d};
        } else if (key == "reason") {
          TALA_ASSIGN_OR_RETURN(a.reason, ReadString(ctx, field, value));
        } else if (key == "label") {
          TALA_ASSIGN_OR_RETURN(a.label, ReadString(ctx, field, value));
        } else if (key == "weighted") {
          TALA_ASSIGN_OR_RETURN(a.weighted, ReadNumber(ctx, field, value));
        } else if (key == "items") {
          simdjson::dom::array arr;
          if (value.get_array().get(arr)) return Expected(ctx, field, "an array", value);
          size_t idx = 0;
          for (element item : arr) {
            std::string item_path = field + "[" + std::to_string(idx++) + "]";
            TALA_ASSIGN_OR_RETURN(object item_obj, ReadObject(ctx, item_path, item));
            AnswerItem out;
            for (auto [flag, flag_value] : item_obj) {
              std::string flag_path = item_path + "." + std::string(flag);
              if (flag == "text") {
                TALA_ASSIGN_OR_RETURN(out.text, ReadString(ctx, flag_path, flag_value));
              } else {
                TALA_ASSIGN_OR_RETURN(out.flags[std::string(flag)],
                                      ReadFlag(ctx, flag_path, flag_value));
              }
            }
            a.items.push_back(std::move(out));
          }
        }
        return OkStatus();
      }));
  return a;
}

Status ReadAnswers(const FieldContext& ctx, element v, Verdicts& out) {
  TALA_ASSIGN_OR_RETURN(object obj, ReadObject(ctx, "verdicts.answers", v));
  for (auto [key, value] : obj) {
    std::string k(key);
    TALA_ASSIGN_OR_RETURN(out.answers[k], ReadAnswer(ctx, "verdicts.answers." + k, value));
  }
  return OkStatus();
}

}  // namespace

Result<Verdicts> ParseVerdicts(const FieldContext& ctx, element v) {
  TALA_ASSIGN_OR_RETURN(object obj, ReadObject(ctx, "verdicts", v));
  Verdicts out;
  TALA_RETURN_IF_ERROR(ForEachMember(
      ctx, std::string(kPrefix), obj,
      {"chunk_relevant", "chunk_relevant_to_response", "response_claims", "reference_claims",
       "generated_questions", "reference_entities", "context_entities",
       "response_reference_similarity", "embeddings", "answers"},
      [&](std::string_view key, element value, const std::string& field) -> Status {
        if (key == "chunk_relevant") {
          TALA_ASSIGN_OR_RETURN(out.chunk_relevant, ReadFlagArray(ctx, field, value));
        } else if (key == "chunk_relevant_to_response") {
          TALA_ASSIGN_OR_RETURN(out.chunk_relevant_to_response, ReadFlagArray(ctx, field, value));
        } else if (key == "response_claims") {
          TALA_ASSIGN_OR_RETURN(out.response_claims, ReadResponseClaims(ctx, value));
        } else if (key == "reference_claims") {
          TALA_ASSIGN_OR_RETURN(out.reference_claims, ReadReferenceClaims(ctx, value));
        } else if (key == "generated_questions") {
          TALA_ASSIGN_OR_RETURN(out.generated_questions, ReadQuestions(ctx, value));
        } else if (key == "reference_entities") {
          TALA_ASSIGN_OR_RETURN(out.reference_entities, ReadStringArray(ctx, field, value));
        } else if (key == "context_entities") {
          TALA_ASSIGN_OR_RETURN(out.context_entities, ReadStringArray(ctx, field, value));
        } else if (key == "response_reference_similarity") {
          TALA_ASSIGN_OR_RETURN(out.response_reference_similarity, ReadNumber(ctx, field, value));
        } else if (key == "embeddings") {
          TALA_RETURN_IF_ERROR(ReadEmbeddings(ctx, value, out));
        } else if (key == "answers") {
          TALA_RETURN_IF_ERROR(ReadAnswers(ctx, value, out));
        }
        return OkStatus();
      }));
  return out;
}

}  // namespace tala::io
