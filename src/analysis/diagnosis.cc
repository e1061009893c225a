#include "analysis/diagnosis.h"

#include "metrics/context_precision.h"
#include "metrics/context_recall.h"
#include "metrics/faithfulness.h"
#include "metrics/id_based.h"
#include "metrics/knowledge_retention.h"
#include "metrics/nv_ratings.h"
#include "metrics/response_relevancy.h"
#include "metrics/role_adherence.h"

namespace tala::analysis {

const std::vector<Diagnosis>& AllDiagnoses() {
  static const std::vector<Diagnosis> kAll = {Diagnosis::kRetrieverMiss,
                                              Diagnosis::kRankingNoise,
                                              Diagnosis::kGeneratorNotGrounded,
                                              Diagnosis::kOffTopic,
                                              Diagnosis::kHealthy,
                                              Diagnosis::kNotDiagnosed,
                                              Diagnosis::kRetrieverMissInferred,
                                              Diagnosis::kUnknown,
                                              Diagnosis::kForgetsUser,
                                              Diagnosis::kLeavesRole};
  return kAll;
}

std::string_view DiagnosisName(Diagnosis d) {
  switch (d) {
    case Diagnosis::kRetrieverMiss:
      return "retriever miss";
    case Diagnosis::kRankingNoise:
      return "ranking noise";
    case Diagnosis::kGeneratorNotGrounded:
      return "generator not grounded";
    case Diagnosis::kOffTopic:
      return "off-topic answer";
    case Diagnosis::kHealthy:
      return "healthy";
    case Diagnosis::kNotDiagnosed:
      return "not diagnosed";
    case Diagnosis::kRetrieverMissInferred:
      return "retriever miss (no reference: inferred from context relevance)";
    case Diagnosis::kUnknown:
      return "unknown (unsupported answer, retrieval not checked)";
    case Diagnosis::kForgetsUser:
      return "forgets what the user said";
    case Diagnosis::kLeavesRole:
      return "steps out of its role";
  }
  return "?";
}

std::string_view DiagnosisStage(Diagnosis d) {
  switch (d) {
    case Diagnosis::kRetrieverMiss:
    case Diagnosis::kRankingNoise:
    case Diagnosis::kRetrieverMissInferred:
      return "retriever";
    case Diagnosis::kGeneratorNotGrounded:
    case Diagnosis::kOffTopic:
    case Diagnosis::kForgetsUser:
    case Diagnosis::kLeavesRole:
      return "generator";
    case Diagnosis::kHealthy:
    case Diagnosis::kNotDiagnosed:
    case Diagnosis::kUnknown:
      return "";
  }
  return "";
}

Diagnosis PrincipalFailure(const std::map<Diagnosis, int64_t>& rows) {
  auto count = [&](Diagnosis d) {
    auto it = rows.find(d);
    return it == rows.end() || DecidingMetric(d).empty() ? int64_t{0} : it->second;
  };
  // The half of the pipeline that fails the most rows (N12: the largest single category alone
  // named the generator under a picture where the retriever failed more rows); a tie goes to the
  // retriever, whose failures explain the generator's. Then its largest category.
  std::map<std::string_view, int64_t> by_stage;
  for (Diagnosis d : AllDiagnoses()) by_stage[DiagnosisStage(d)] += count(d);
  const std::string_view stage =
      by_stage["generator"] > by_stage["retriever"] ? "generator" : "retriever";
  int64_t most = 0;
  Diagnosis principal = Diagnosis::kHealthy;
  for (Diagnosis d : AllDiagnoses()) {
    if (DiagnosisStage(d) != stage || count(d) <= most) continue;
    most = count(d);
    principal = d;
  }
  return principal;
}

std::string DecidingMetricOf(std::string_view name) {
  for (Diagnosis d : AllDiagnoses()) {
    if (DiagnosisName(d) == name) return DecidingMetric(d);
  }
  return "";
}

std::string_view DiagnosisStage(std::string_view name) {
  for (Diagnosis d : AllDiagnoses()) {
    if (DiagnosisName(d) == name) return DiagnosisStage(d);
  }
  return "";
}

std::string_view DiagnosisAdvice(Diagnosis d) {
  switch (d) {
    case Diagnosis::kRetrieverMiss:
      return "the needed information was not retrieved: fix retrieval or chunking first (a miss "
             "often causes low faithfulness too)";
    case Diagnosis::kRankingNoise:
      return "useful chunks are ranked below noise: add a reranker or filter";
    case Diagnosis::kGeneratorNotGrounded:
      return "the answer says what the context does not: tighten the prompt, lower the "
             "temperature, require citations";
    case Diagnosis::kOffTopic:
      return "the answer does not address the question";
    case Diagnosis::kHealthy:
      return "no metric below its threshold";
    case Diagnosis::kNotDiagnosed:
      return "neither the answer's grounding nor the retrieval was scored (no contexts, or "
             "their metrics undefined), so nothing says the row is healthy";
    case Diagnosis::kRetrieverMissInferred:
      return "no reference, but the chunks do not address the question: fix retrieval first";
    case Diagnosis::kUnknown:
      return "the answer is not supported by its chunks, and with no reference nothing says "
             "whether the chunks held the answer: add a reference, score context_relevance, or "
             "run tala diagnose against the app";
    case Diagnosis::kForgetsUser:
      return "a turn contradicts or asks again what the user said earlier: give the generator "
             "the conversation so far (or the facts the user stated) with every turn";
    case Diagnosis::kLeavesRole:
      return "a turn steps out of the role the assistant was given: put the role's limits in "
             "the system prompt of every turn, and refuse what it excludes";
  }
  return "";
}

std::string DecidingMetric(Diagnosis d) {
  switch (d) {
    case Diagnosis::kRetrieverMiss:
      return metrics::ContextRecallInfo().name;
    case Diagnosis::kRankingNoise:
      return metrics::ContextPrecisionInfo().name;
    case Diagnosis::kGeneratorNotGrounded:
      return metrics::FaithfulnessInfo().name;
    case Diagnosis::kOffTopic:
      return metrics::ResponseRelevancyInfo().name;
    case Diagnosis::kRetrieverMissInferred:
      return metrics::ContextRelevanceInfo().name;
    case Diagnosis::kUnknown:
      return metrics::FaithfulnessInfo().name;
    case Diagnosis::kForgetsUser:
      return metrics::KnowledgeRetentionInfo().name;
    case Diagnosis::kLeavesRole:
      return metrics::RoleAdherenceInfo().name;
    default:
      return {};
  }
}

Diagnosis Diagnose(const std::map<std::string, double>& scores, const DiagnosisRule& rule) {
  const std::string& recall = metrics::ContextRecallInfo().name;
  const std::string& id_recall = metrics::IdBasedContextRecallInfo().name;
  const std::string& precision = metrics::ContextPrecisionInfo().name;
  const std::string& faithfulness = metrics::FaithfulnessInfo().name;
  const std::string& relevancy = metrics::ResponseRelevancyInfo().name;
  const std::string& context_relevance = metrics::ContextRelevanceInfo().name;
  auto low = [&](const std::string& metric) {
    auto it = scores.find(metric);
    return it != scores.end() && it->second < rule.ThresholdFor(metric);
  };
  auto has = [&](const std::string& metric) { return scores.count(metric) > 0; };
  bool any = false;
  for (const std::string* m : {&recall, &precision, &faithfulness, &relevancy}) {
    any = any || has(*m);
  }
  const std::string& retention = metrics::KnowledgeRetentionInfo().name;
  const std::string& role = metrics::RoleAdherenceInfo().name;
  if (!any) {
    // A turn that forgets the user or leaves its role failed whatever the rest would say.
    if (low(retention)) return Diagnosis::kForgetsUser;
    if (low(role)) return Diagnosis::kLeavesRole;
    return Diagnosis::kNotDiagnosed;
  }
  // Pipeline order: a retrieval failure explains the generator's symptoms, not the reverse.
  if (low(recall) || (!has(recall) && low(id_recall))) return Diagnosis::kRetrieverMiss;
  if (low(precision)) return Diagnosis::kRankingNoise;
  if (low(faithfulness)) {
    // With no reference, recall and precision are undefined, and an answer its chunks do not
    // support is what a retriever miss looks like too (N16): only the chunks' relevance to the
    // question tells the halves apart, and without it the cause is unknown.
    if (has(recall) || has(precision) || has(id_recall)) return Diagnosis::kGeneratorNotGrounded;
    if (!has(context_relevance)) return Diagnosis::kUnknown;
    return low(context_relevance) ? Diagnosis::kRetrieverMissInferred
                                  : Diagnosis::kGeneratorNotGrounded;
  }
  if (low(relevancy)) return Diagnosis::kOffTopic;
  if (low(retention)) return Diagnosis::kForgetsUser;
  if (low(role)) return Diagnosis::kLeavesRole;
  // Healthy says the answer was checked against what was retrieved: a row whose grounding and
  // retrieval were not scored (no contexts came with it) is not shown healthy on relevance alone.
  bool grounded = false;
  for (const std::string* m : {&recall, &precision, &faithfulness}) {
    grounded = grounded || has(*m);
  }
  if (!grounded) return Diagnosis::kNotDiagnosed;
  return Diagnosis::kHealthy;
}

}  // namespace tala::analysis
