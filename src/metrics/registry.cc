#include "metrics/registry.h"

#include <algorithm>
#include <set>

#include "metrics/agent_goal_accuracy.h"
#include "metrics/answer_correctness.h"
#include "metrics/aspect_critic.h"
#include "metrics/bleu.h"
#include "metrics/chrf.h"
#include "metrics/context_entity_recall.h"
#include "metrics/context_precision.h"
#include "metrics/context_recall.h"
#include "metrics/data_compare.h"
#include "metrics/factual_correctness.h"
#include "metrics/faithfulness.h"
#include "metrics/g_eval.h"
#include "metrics/id_based.h"
#include "metrics/ir.h"
#include "metrics/noise_sensitivity.h"
#include "metrics/non_llm_context.h"
#include "metrics/nv_ratings.h"
#include "metrics/response_relevancy.h"
#include "metrics/rouge.h"
#include "metrics/rubrics_score.h"
#include "metrics/semantic_similarity.h"
#include "metrics/simple_criteria.h"
#include "metrics/sql_equivalence.h"
#include "metrics/string_distance.h"
#include "metrics/summarization_score.h"
#include "metrics/tool_call.h"
#include "metrics/topic_adherence.h"
#include "metrics/user_metric.h"

namespace tala::metrics {

const std::vector<RegistryEntry>& MetricRegistry() {
  static const std::vector<RegistryEntry> kRegistry = {
      {FaithfulnessInfo, MakeFaithfulness, "generator (judged)"},
      {ResponseRelevancyInfo, MakeResponseRelevancy, "generator (judged)"},
      {ContextPrecisionInfo, MakeContextPrecision, "retriever (judged)"},
      {ContextPrecisionWithoutReferenceInfo, MakeContextPrecisionWithoutReference,
       "retriever (judged)"},
      {ContextRecallInfo, MakeContextRecall, "retriever (judged)"},
      {NoiseSensitivityInfo, MakeNoiseSensitivity, "generator (judged)"},
      {NoiseSensitivityIrrelevantInfo, MakeNoiseSensitivityIrrelevant, "generator (judged)"},
      {FactualCorrectnessInfo, MakeFactualCorrectness, "answer against a reference (judged)"},
      {ContextEntityRecallInfo, MakeContextEntityRecall, "retriever (judged)"},
      {AnswerCorrectnessInfo, MakeAnswerCorrectness, "answer against a reference (judged)"},
      {SemanticSimilarityInfo, MakeSemanticSimilarity, "answer against a reference (judged)"},
      {IdBasedContextPrecisionInfo, MakeIdBasedContextPrecision, "retriever by ids (no judge)"},
      {IdBasedContextRecallInfo, MakeIdBasedContextRecall, "retriever by ids (no judge)"},
      {HitRateInfo, MakeHitRate, "retriever by ids (no judge)"},
      {PrecisionAtKInfo, MakePrecisionAtK, "retriever by ids (no judge)"},
      {RecallAtKInfo, MakeRecallAtK, "retriever by ids (no judge)"},
      {MrrInfo, MakeMrr, "retriever by ids (no judge)"},
      {AveragePrecisionInfo, MakeAveragePrecision, "retriever by ids (no judge)"},
      {NdcgInfo, MakeNdcg, "retriever by ids (no judge)"},
      {RPrecisionInfo, MakeRPrecision, "retriever by ids (no judge)"},
      {NonLlmContextPrecisionInfo, MakeNonLlmContextPrecision, "retriever by text (no judge)"},
      {NonLlmContextRecallInfo, MakeNonLlmContextRecall, "retriever by text (no judge)"},
      {BleuInfo, MakeBleu, "answer text overlap (no judge)"},
      {RougeInfo, MakeRouge, "answer text overlap (no judge)"},
      {ChrfInfo, MakeChrf, "answer text overlap (no judge)"},
      {ExactMatchInfo, MakeExactMatch, "answer text overlap (no judge)"},
      {StringPresenceInfo, MakeStringPresence, "answer text overlap (no judge)"},
      {StringSimilarityInfo, MakeStringSimilarity, "answer text overlap (no judge)"},
      {ToolCallAccuracyInfo, MakeToolCallAccuracy, "agents and tools (no judge)"},
      {ToolCallF1Info, MakeToolCallF1, "agents and tools (no judge)"},
      {DataCompareInfo, MakeDataCompare, "SQL and data (no judge)"},
      {AnswerAccuracyInfo, MakeAnswerAccuracy, "NVIDIA single-rating metrics (judged)"},
      {ContextRelevanceInfo, MakeContextRelevance, "NVIDIA single-rating metrics (judged)"},
      {ResponseGroundednessInfo, MakeResponseGroundedness, "NVIDIA single-rating metrics (judged)"},
      {AspectCriticInfo, MakeAspectCritic, "your own criteria (judged)"},
      {SimpleCriteriaInfo, MakeSimpleCriteria, "your own criteria (judged)"},
      {RubricsScoreInfo, MakeRubricsScore, "your own criteria (judged)"},
      {InstanceRubricsInfo, MakeInstanceRubrics, "your own criteria (judged)"},
      {GEvalInfo, MakeGEval, "your own criteria (judged)"},
      {SummarizationScoreInfo, MakeSummarizationScore, "summaries (judged)"},
      {AgentGoalAccuracyInfo, MakeAgentGoalAccuracy, "agents and tools (judged)"},
      {TopicAdherenceInfo, MakeTopicAdherence, "agents and tools (judged)"},
      {SqlEquivalenceInfo, MakeSqlEquivalence, "SQL and data (judged)"},
  };
  return kRegistry;
}

const RegistryEntry* FindMetric(const std::string& name) {
  for (const RegistryEntry& e : MetricRegistry()) {
    const MetricInfo& info = e.info();
    if (info.name == name) return &e;
    for (const std::string& alias : info.aliases) {
      if (alias == name) return &e;
    }
  }
  return nullptr;
}

namespace {
std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// The next comma at or after `from` outside double quotes; npos when none. kInvalidArgument
// when a quote is never closed.
Result<size_t> NextComma(const std::string& list, size_t from) {
  bool quoted = false;
  for (size_t i = from; i < list.size(); ++i) {
    if (list[i] == '"') quoted = !quoted;
    if (list[i] == ',' && !quoted) return i;
  }
  if (quoted) return InvalidArgument("--metrics \"" + list + "\": a quote is never closed");
  return std::string::npos;
}

// "\"text\"" → text; anything else as it is.
std::string Unquote(std::string v) {
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return v.substr(1, v.size() - 2);
  return v;
}

Status AddOption(MetricSpec& spec, const std::string& piece) {
  size_t eq = piece.find('=');
  std::string k = Trim(piece.substr(0, eq));
  std::string v = eq == std::string::npos ? "" : Unquote(Trim(piece.substr(eq + 1)));
  if (eq == std::string::npos || k.empty() || v.empty()) {
    return InvalidArgument("metric " + spec.name + ": option \"" + piece + "\" is not key=value");
  }
  if (!spec.options.emplace(k, v).second) {
    return InvalidArgument("metric " + spec.name + ": option " + k + " given twice");
  }
  return OkStatus();
}
}  // namespace

Result<std::vector<MetricSpec>> ParseMetricSpecs(const std::string& list) {
  std::vector<MetricSpec> specs;
  size_t start = 0;
  while (start <= list.size()) {
    TALA_ASSIGN_OR_RETURN(size_t comma, NextComma(list, start));
    std::string piece = Trim(list.substr(start, comma - start));
    start = comma == std::string::npos ? list.size() + 1 : comma + 1;
    // The name ends at a ':' that comes before any '=' or quote ("aspect_critic:name=x").
    size_t colon = piece.find_first_of(":=\"");
    if (colon != std::string::npos && piece[colon] != ':') colon = std::string::npos;
    if (colon == std::string::npos && piece.find('=') != std::string::npos && !specs.empty()) {
      TALA_RETURN_IF_ERROR(AddOption(specs.back(), piece));
      continue;
    }
    MetricSpec spec;
    spec.name = Trim(piece.substr(0, colon));
    if (size_t at = spec.name.find('@'); at != std::string::npos) {  // "precision@5"
      spec.options["k"] = spec.name.substr(at + 1);
      spec.name.resize(at);
    }
    if (spec.name.empty()) {
      return InvalidArgument("empty metric name in --metrics \"" + list + "\"");
    }
    if (colon != std::string::npos) TALA_RETURN_IF_ERROR(AddOption(spec, piece.substr(colon + 1)));
    specs.push_back(std::move(spec));
  }
  return specs;
}

Direction DirectionOfKey(const std::string& key) {
  const RegistryEntry* e = FindMetric(key.substr(0, key.find_first_of("(@")));
  return e == nullptr ? Direction::kHigherIsBetter : e->info().direction;
}

std::vector<MetricSpec> ExpandCutoffs(const std::vector<MetricSpec>& specs,
                                      const std::vector<int>& ks) {
  if (ks.empty()) return specs;
  std::vector<MetricSpec> out;
  for (const MetricSpec& spec : specs) {
    const RegistryEntry* entry = FindMetric(spec.name);
    if (entry == nullptr || !TakesCutoff(entry->info().name) || spec.options.count("k")) {
      out.push_back(spec);
      continue;
    }
    for (int k : ks) {
      MetricSpec one = spec;
      one.options["k"] = std::to_string(k);
      out.push_back(std::move(one));
    }
  }
  return out;
}

void ApplyRubric(std::vector<MetricSpec>& specs, const std::map<std::string, std::string>& rubric) {
  for (MetricSpec& spec : specs) {
    const RegistryEntry* entry = FindMetric(spec.name);
    if (entry != nullptr && &entry->info() == &RubricsScoreInfo() && spec.options.empty()) {
      spec.options = rubric;
    }
  }
}

Result<std::vector<std::unique_ptr<Metric>>> CreateMetrics(const std::vector<MetricSpec>& specs,
                                                           const std::vector<UserMetricDef>& user) {
  std::vector<std::unique_ptr<Metric>> out;
  std::set<std::string> keys;
  for (const MetricSpec& spec : specs) {
    const RegistryEntry* entry = FindMetric(spec.name);
    auto def = std::find_if(user.begin(), user.end(),
                            [&](const UserMetricDef& d) { return d.name == spec.name; });
    if (entry == nullptr && def != user.end()) {
      if (!spec.options.empty()) {
        return InvalidArgument("metric " + spec.name +
                               " is defined in the config; it takes no "
                               "options in --metrics");
      }
      TALA_ASSIGN_OR_RETURN(std::unique_ptr<Metric> metric, MakeUserMetric(*def));
      if (keys.insert(metric->key()).second) out.push_back(std::move(metric));
      continue;
    }
    if (entry == nullptr) {
      std::string known;
      for (const RegistryEntry& e : MetricRegistry()) {
        known += (known.empty() ? "" : ", ") + e.info().name;
      }
      for (const UserMetricDef& d : user) known += ", " + d.name;
      return NotFound("unknown metric \"" + spec.name + "\"; known metrics: " + known +
                      " (see `tala metrics`)");
    }
    TALA_ASSIGN_OR_RETURN(std::unique_ptr<Metric> metric, entry->make(spec.options));
    if (!keys.insert(metric->key()).second) continue;  // asked twice (e.g. name and alias)
    out.push_back(std::move(metric));
  }
  return out;
}

}  // namespace tala::metrics

namespace tala {

std::vector<MetricInfo> AllMetricInfos() {
  std::vector<MetricInfo> out;
  for (const metrics::RegistryEntry& e : metrics::MetricRegistry()) {
    out.push_back(e.info());
    out.back().family = e.family;
  }
  return out;
}

}  // namespace tala
