#include "judges/llm/reply_parser.h"

#include <nlohmann/json.hpp>

namespace tala::judges::llm {

namespace {

using nlohmann::json;

Status Bad(std::string message) { return {ErrorCode::kBadReply, std::move(message)}; }

std::string TypeName(const json& j) { return j.type_name(); }

Result<json> ParseObject(std::string_view reply) {
  TALA_ASSIGN_OR_RETURN(std::string text, ExtractJsonObject(reply));
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Bad("reply is not valid JSON: " + text.substr(0, 120));
  return j;
}

Result<const json*> Field(const json& object, const std::string& where, const char* name) {
  auto it = object.find(name);
  if (it == object.end()) return Bad(where + ": missing field \"" + name + "\"");
  return &*it;
}

Result<const json*> ArrayField(const json& object, const std::string& where, const char* name) {
  TALA_ASSIGN_OR_RETURN(const json* value, Field(object, where, name));
  if (!value->is_array()) {
    return Bad(where + "." + name + ": expected an array, got " + TypeName(*value));
  }
  return value;
}

Result<bool> BoolField(const json& object, const std::string& where, const char* name) {
  TALA_ASSIGN_OR_RETURN(const json* value, Field(object, where, name));
  if (!value->is_boolean()) {
    return Bad(where + "." + name + ": expected true or false, got " + TypeName(*value));
  }
  return value->get<bool>();
}

Result<std::string> StringField(const json& object, const std::string& where, const char* name) {
  TALA_ASSIGN_OR_RETURN(const json* value, Field(object, where, name));
  if (!value->is_string()) {
    return Bad(where + "." + name + ": expected a string, got " + TypeName(*value));
  }
  return value->get<std::string>();
}

std::string OptionalReason(const json& object) {
  auto it = object.find("reason");
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

Result<std::vector<std::string>> StringList(const json& object, const char* name) {
  TALA_ASSIGN_OR_RETURN(const json* list, ArrayField(object, "reply", name));
  std::vector<std::string> out;
  for (size_t i = 0; i < list->size(); ++i) {
    const json& item = (*list)[i];
    if (!item.is_string()) {
      return Bad(std::string(name) + "[" + std::to_string(i) + "]: expected a string, got " +
                 TypeName(item));
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

Result<std::vector<int>> ChunkList(const json& claim, const std::string& where, int chunk_count) {
  TALA_ASSIGN_OR_RETURN(const json* list, ArrayField(claim, where, "supported_by"));
  std::vector<int> out;
  for (const json& item : *list) {
    if (!item.is_number_integer()) {
      return Bad(where + ".supported_by: expected chunk numbers, got " + TypeName(item));
    }
    int n = item.get<int>();
    if (n < 1 || n > chunk_count) {
      return Bad(where + ".supported_by: chunk " + std::to_string(n) + " is out of range 1.." +
                 std::to_string(chunk_count));
    }
    int index = n - 1;
    if (std::find(out.begin(), out.end(), index) == out.end()) out.push_back(index);
  }
  return out;
}

}  // namespace

Result<std::string> ExtractJsonObject(std::string_view reply) {
  // The outermost braces: skips code fences ("```json") and prose a model adds around JSON.
  size_t open = reply.find('{');
  size_t close = reply.rfind('}');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    std::string head(reply.substr(0, 120));
    return Bad("reply holds no JSON object" + (head.empty() ? "" : ": " + head));
  }
  return std::string(reply.substr(open, close - open + 1));
}

Result<std::vector<ClaimVerdict>> ParseResponseClaims(std::string_view reply, ClaimFields fields,
                                                      int chunk_count) {
  TALA_ASSIGN_OR_RETURN(json j, ParseObject(reply));
  TALA_ASSIGN_OR_RETURN(const json* claims, ArrayField(j, "reply", "claims"));
  std::vector<ClaimVerdict> out;
  for (size_t i = 0; i < claims->size(); ++i) {
    const json& c = (*claims)[i];
    std::string where = "claims[" + std::to_string(i) + "]";
    if (!c.is_object()) return Bad(where + ": expected an object, got " + TypeName(c));
    ClaimVerdict v;
    TALA_ASSIGN_OR_RETURN(v.text, StringField(c, where, "claim"));
    if (fields.supported_by) {
      TALA_ASSIGN_OR_RETURN(v.supported_by, ChunkList(c, where, chunk_count));
      v.supported = !v.supported_by.empty();
    }
    if (fields.correct) {
      TALA_ASSIGN_OR_RETURN(bool correct, BoolField(c, where, "correct"));
      v.correct = correct;
    }
    v.reason = OptionalReason(c);
    out.push_back(std::move(v));
  }
  return out;
}

Result<std::vector<ReferenceClaim>> ParseReferenceClaims(std::string_view reply,
                                                         ReferenceFields fields) {
  TALA_ASSIGN_OR_RETURN(json j, ParseObject(reply));
  TALA_ASSIGN_OR_RETURN(const json* claims, ArrayField(j, "reply", "claims"));
  std::vector<ReferenceClaim> out;
  for (size_t i = 0; i < claims->size(); ++i) {
    const json& c = (*claims)[i];
    std::string where = "claims[" + std::to_string(i) + "]";
    if (!c.is_object()) return Bad(where + ": expected an object, got " + TypeName(c));
    ReferenceClaim v;
    TALA_ASSIGN_OR_RETURN(v.text, StringField(c, where, "claim"));
    if (fields.attributed) {
      TALA_ASSIGN_OR_RETURN(bool attributed, BoolField(c, where, "attributed"));
      v.attributed = attributed;
    }
    if (fields.in_response) {
      TALA_ASSIGN_OR_RETURN(bool in_response, BoolField(c, where, "in_response"));
      v.in_response = in_response;
    }
    v.reason = OptionalReason(c);
    out.push_back(std::move(v));
  }
  return out;
}

Result<ChunkRatings> ParseChunkRatings(std::string_view reply, ChunkFields fields, int begin,
                                       int end) {
  TALA_ASSIGN_OR_RETURN(json j, ParseObject(reply));
  TALA_ASSIGN_OR_RETURN(const json* chunks, ArrayField(j, "reply", "chunks"));
  const int expected = end - begin;
  if (static_cast<int>(chunks->size()) != expected) {
    return Bad("chunks: expected " + std::to_string(expected) + " ratings (chunks " +
               std::to_string(begin + 1) + ".." + std::to_string(end) + "), got " +
               std::to_string(chunks->size()));
  }
  ChunkRatings out;
  if (fields.for_reference) out.for_reference.assign(expected, false);
  if (fields.for_response) out.for_response.assign(expected, false);
  std::vector<bool> seen(expected, false);
  for (size_t i = 0; i < chunks->size(); ++i) {
    const json& c = (*chunks)[i];
    std::string where = "chunks[" + std::to_string(i) + "]";
    if (!c.is_object()) return Bad(where + ": expected an object, got " + TypeName(c));
    // A reply that omits the numbers is read in order; a numbered one must name each chunk once.
    int slot = static_cast<int>(i);
    if (auto it = c.find("chunk"); it != c.end()) {
      if (!it->is_number_integer()) return Bad(where + ".chunk: expected a chunk number");
      slot = it->get<int>() - 1 - begin;
      if (slot < 0 || slot >= expected || seen[slot]) {
        return Bad(where + ".chunk: " + it->dump() + " is not one of chunks " +
                   std::to_string(begin + 1) + ".." + std::to_string(end) + " or repeats one");
      }
    }
    seen[slot] = true;
    if (fields.for_reference) {
      TALA_ASSIGN_OR_RETURN(bool useful, BoolField(c, where, "for_reference"));
      out.for_reference[slot] = useful;
    }
    if (fields.for_response) {
      TALA_ASSIGN_OR_RETURN(bool useful, BoolField(c, where, "for_response"));
      out.for_response[slot] = useful;
    }
  }
  return out;
}

Result<QuestionsReply> ParseQuestions(std::string_view reply, int expected) {
  TALA_ASSIGN_OR_RETURN(json j, ParseObject(reply));
  QuestionsReply out;
  TALA_ASSIGN_OR_RETURN(out.questions, StringList(j, "questions"));
  if (static_cast<int>(out.questions.size()) != expected) {
    return Bad("questions: expected " + std::to_string(expected) + ", got " +
               std::to_string(out.questions.size()));
  }
  TALA_ASSIGN_OR_RETURN(out.noncommittal, BoolField(j, "reply", "noncommittal"));
  return out;
}

Result<EntitiesReply> ParseEntities(std::string_view reply) {
  TALA_ASSIGN_OR_RETURN(json j, ParseObject(reply));
  EntitiesReply out;
  TALA_ASSIGN_OR_RETURN(out.reference, StringList(j, "reference_entities"));
  TALA_ASSIGN_OR_RETURN(out.context, StringList(j, "context_entities"));
  return out;
}

}  // namespace tala::judges::llm
