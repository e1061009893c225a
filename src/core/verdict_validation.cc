#include "core/verdict_validation.h"

#include <cmath>

namespace tala {

std::optional<double> Cosine(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty()) return std::nullopt;
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (na == 0 || nb == 0) return std::nullopt;
  return dot / (std::sqrt(na) * std::sqrt(nb));
}

namespace {

Status Mismatch(const Sample& s, const std::string& file, std::string field, std::string what) {
  return DataError({file, s.line, 0, "verdicts." + std::move(field)}, std::move(what));
}

size_t ChunkCount(const Sample& s) {
  return s.retrieved_contexts ? s.retrieved_contexts->size() : 0;
}

Status CheckChunkFlags(const Sample& s, const std::string& file, const char* field,
                       const std::optional<std::vector<bool>>& flags) {
  if (!flags) return OkStatus();
  if (!s.retrieved_contexts) {
    return Mismatch(s, file, field, "gives chunk verdicts but the row has no retrieved_contexts");
  }
  if (flags->size() != ChunkCount(s)) {
    return Mismatch(s, file, field,
                    "has " + std::to_string(flags->size()) + " entries but the row has " +
                        std::to_string(ChunkCount(s)) + " retrieved_contexts");
  }
  return OkStatus();
}

Status CheckClaims(const Sample& s, const std::string& file,
                   const std::vector<ClaimVerdict>& claims) {
  for (size_t claim_idx = 0; claim_idx < claims.size(); ++claim_idx) {
    for (int chunk_idx : claims[claim_idx].supported_by) {
      if (chunk_idx < 0 || static_cast<size_t>(chunk_idx) >= ChunkCount(s)) {
        return Mismatch(s, file, "response_claims[" + std::to_string(claim_idx) + "].supported_by",
                        "chunk index " + std::to_string(chunk_idx) + " is outside the row's " +
                            std::to_string(ChunkCount(s)) + " retrieved_contexts (0-based)");
      }
    }
  }
  return OkStatus();
}

Status FillCosines(const Sample& s, const std::string& file, Verdicts& v) {
  if (!v.generated_questions) return OkStatus();
  for (size_t q_idx = 0; q_idx < v.generated_questions->size(); ++q_idx) {
    GeneratedQuestion& q = (*v.generated_questions)[q_idx];
    if (q.cosine || v.embeddings.empty()) continue;
    auto question_vec = s.user_input ? v.embeddings.find(*s.user_input) : v.embeddings.end();
    auto generated_vec = v.embeddings.find(q.text);
    std::string field = "generated_questions[" + std::to_string(q_idx) + "]";
    if (question_vec == v.embeddings.end() || generated_vec == v.embeddings.end()) {
      return Mismatch(s, file, field,
                      "no cosine, and verdicts.embeddings lacks a vector for user_input or for "
                      "the question's text");
    }
    std::optional<double> c = Cosine(question_vec->second, generated_vec->second);
    if (!c) {
      return Mismatch(s, file, field, "embedding vectors differ in size or one is all zeros");
    }
    q.cosine = c;
  }
  return OkStatus();
}

}  // namespace

Status ValidateVerdicts(const Sample& s, Verdicts& v, const std::string& file) {
  TALA_RETURN_IF_ERROR(CheckChunkFlags(s, file, "chunk_relevant", v.chunk_relevant));
  TALA_RETURN_IF_ERROR(
      CheckChunkFlags(s, file, "chunk_relevant_to_response", v.chunk_relevant_to_response));
  if (v.response_claims) TALA_RETURN_IF_ERROR(CheckClaims(s, file, *v.response_claims));
  TALA_RETURN_IF_ERROR(FillCosines(s, file, v));
  if (!v.response_reference_similarity && s.response && s.reference) {
    auto a = v.embeddings.find(*s.response);
    auto b = v.embeddings.find(*s.reference);
    if (a != v.embeddings.end() && b != v.embeddings.end()) {
      v.response_reference_similarity = Cosine(a->second, b->second);
    }
  }
  return OkStatus();
}

}  // namespace tala
