#pragma once
// Per-row diagnosis: which half of the RAG pipeline failed, read in pipeline order from the
// row's scores with a threshold per metric (default 0.7, respecting each metric's direction):
//   context_recall (or id_based_context_recall) low -> retriever miss
//   context_precision low, recall fine              -> ranking noise
//   faithfulness low, retrieval checked and fine    -> generator not grounded
//   faithfulness low, no reference to check retrieval against:
//     context_relevance low                         -> retriever miss (inferred)
//     context_relevance fine                        -> generator not grounded
//     context_relevance not scored                  -> unknown (never blamed on the generator:
//                                                      a retriever miss looks the same)
//   response_relevancy low                          -> off-topic answer
//   knowledge_retention low (a conversation's turn) -> forgets what the user said
//   role_adherence low (a conversation's turn)      -> steps out of its role
//   otherwise                                       -> healthy
// A metric missing from the row is skipped; a row with none of the four is "not diagnosed",
// unless a turn forgets the user or steps out of its role.
// Pure; thread-safe.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tala::analysis {

enum class Diagnosis {
  kRetrieverMiss,
  kRankingNoise,
  kGeneratorNotGrounded,
  kOffTopic,
  kHealthy,
  kNotDiagnosed,
  // Appended, so the positions kept in run journals (KeptRows) keep their meaning.
  kRetrieverMissInferred,
  kUnknown,
  kForgetsUser,  // a conversation's turn contradicts or asks again what the user said
  kLeavesRole,   // a conversation's turn steps out of the role the assistant was given
};

struct DiagnosisRule {
  double threshold = 0.7;                    // the documented default for every metric
  std::map<std::string, double> per_metric;  // overrides by metric name (or from a baseline)
  double ThresholdFor(const std::string& metric) const {
    auto it = per_metric.find(metric);
    return it != per_metric.end() ? it->second : threshold;
  }
};

const std::vector<Diagnosis>& AllDiagnoses();
std::string_view DiagnosisName(Diagnosis d);    // "retriever miss"
std::string_view DiagnosisAdvice(Diagnosis d);  // what to fix first
// The half of the pipeline a diagnosis blames: "retriever", "generator", or "" (healthy, not
// diagnosed). By name ("ranking noise") too, for diagnoses read back from a results file.
std::string_view DiagnosisStage(Diagnosis d);
std::string_view DiagnosisStage(std::string_view name);

// The metric whose low value gives the diagnosis; empty for healthy and not diagnosed.
std::string DecidingMetric(Diagnosis d);
// The same for a diagnosis by name ("ranking noise"); empty for an unknown name.
std::string DecidingMetricOf(std::string_view name);

// The most frequent failure among `rows` (diagnosis -> rows) within the half of the pipeline that
// fails the most rows, so the verdict and the pipeline picture never disagree; the retriever on
// a tie (fix retrieval first); kHealthy when no row fails.
Diagnosis PrincipalFailure(const std::map<Diagnosis, int64_t>& rows);

// `scores` maps metric wire names to the row's defined values.
Diagnosis Diagnose(const std::map<std::string, double>& scores, const DiagnosisRule& rule = {});

}  // namespace tala::analysis
