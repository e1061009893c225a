#pragma once
// Strict reading of a model's reply into typed verdicts. A reply wrapped in a code fence or in
// surrounding prose is still read (the outermost JSON object is taken); anything else outside
// the contract is kBadReply with the field at fault: "claims[2].supported_by: chunk 7 is out of
// range 1..5". Pure; thread-safe.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tala/status.h"
#include "tala/verdicts.h"

namespace tala::judges::llm {

// The JSON object text inside `reply`, or kBadReply when there is none.
Result<std::string> ExtractJsonObject(std::string_view reply);

struct ClaimFields {
  bool supported_by = false;  // ask chunk attribution (supported = any chunk)
  bool correct = false;       // ask agreement with the reference
};
Result<std::vector<ClaimVerdict>> ParseResponseClaims(std::string_view reply, ClaimFields fields,
                                                      int chunk_count);

struct ReferenceFields {
  bool attributed = false;
  bool in_response = false;
};
Result<std::vector<ReferenceClaim>> ParseReferenceClaims(std::string_view reply,
                                                         ReferenceFields fields);

struct ChunkFields {
  bool for_reference = false;
  bool for_response = false;
};
struct ChunkRatings {
  std::vector<bool> for_reference, for_response;  // one per chunk of [begin, end) when asked
};
// The reply must rate exactly chunks begin+1 .. end (1-based in the prompt), each once.
Result<ChunkRatings> ParseChunkRatings(std::string_view reply, ChunkFields fields, int begin,
                                       int end);

struct QuestionsReply {
  std::vector<std::string> questions;
  bool noncommittal = false;
};
Result<QuestionsReply> ParseQuestions(std::string_view reply, int expected);

struct EntitiesReply {
  std::vector<std::string> reference, context;
};
Result<EntitiesReply> ParseEntities(std::string_view reply);

}  // namespace tala::judges::llm
