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
#include "metrics/conversation_completeness.h"
#include "metrics/data_compare.h"
#include "metrics/factual_correctness.h"
#include "metrics/faithfulness.h"
#include "metrics/g_eval.h"
#include "metrics/id_based.h"
#include "metrics/ir.h"
#include "metrics/knowledge_retention.h"
#include "metrics/noise_sensitivity.h"
#include "metrics/non_llm_context.h"
#include "metrics/nv_ratings.h"
#include "metrics/response_relevancy.h"
#include "metrics/role_adherence.h"
#include "metrics/rouge.h"
#include "metrics/rubrics_score.h"
#include "metrics/semantic_similarity.h"
#include "metrics/simple_criteria.h"
#include "metrics/sql_equivalence.h"
#include "metrics/string_distance.h"
#include "metrics/summarization_score.h"
#include "metrics/tool_call.h"
#include "metrics/topic_adherence.h"
#include "metrics/turn_metrics.h"
#include "metrics/user_metric.h"

namespace tala::metrics {

const std::vector<RegistryEntry>& MetricRegistry() {
  static const std::vector<RegistryEntry> kRegistry = {
      {FaithfulnessInfo, MakeFaithfulness, "generator (judged)", "generation"},
      {ResponseRelevancyInfo, MakeResponseRelevancy, "generator (judged)", "generation"},
      {ContextPrecisionInfo, MakeContextPrecision, "retriever (judged)", "retrieval"},
      {ContextPrecisionWithoutReferenceInfo, MakeContextPrecisionWithoutReference,
       "retriever (judged)", "retrieval"},
      {ContextRecallInfo, MakeContextRecall, "retriever (judged)", "retrieval"},
      {NoiseSensitivityInfo, MakeNoiseSensitivity, "generator (judged)", "generation"},
      {NoiseSensitivityIrrelevantInfo, MakeNoiseSensitivityIrrelevant, "generator (judged)",
       "generation"},
      {FactualCorrectnessInfo, MakeFactualCorrectness, "answer against a reference (judged)",
       "reference"},
      {ContextEntityRecallInfo, MakeContextEntityRecall, "retriever (judged)", "retrieval"},
      {AnswerCorrectnessInfo, MakeAnswerCorrectness, "answer against a reference (judged)",
       "reference"},
      {SemanticSimilarityInfo, MakeSemanticSimilarity, "answer against a reference (judged)",
       "reference"},
      {IdBasedContextPrecisionInfo, MakeIdBasedContextPrecision, "retriever by ids (no judge)",
       "ir"},
      {IdBasedContextRecallInfo, MakeIdBasedContextRecall, "retriever by ids (no judge)", "ir"},
      {HitRateInfo, MakeHitRate, "retriever by ids (no judge)", "ir"},
      {PrecisionAtKInfo, MakePrecisionAtK, "retriever by ids (no judge)", "ir"},
      {RecallAtKInfo, MakeRecallAtK, "retriever by ids (no judge)", "ir"},
      {MrrInfo, MakeMrr, "retriever by ids (no judge)", "ir"},
      {AveragePrecisionInfo, MakeAveragePrecision, "retriever by ids (no judge)", "ir"},
      {NdcgInfo, MakeNdcg, "retriever by ids (no judge)", "ir"},
      {RPrecisionInfo, MakeRPrecision, "retriever by ids (no judge)", "ir"},
      {NonLlmContextPrecisionInfo, MakeNonLlmContextPrecision, "retriever by text (no judge)",
       "retrieval"},
      {NonLlmContextRecallInfo, MakeNonLlmContextRecall, "retriever by text (no judge)",
       "retrieval"},
      {BleuInfo, MakeBleu, "answer text overlap (no judge)", "strings"},
      {RougeInfo, MakeRouge, "answer text overlap (no judge)", "strings"},
      {ChrfInfo, MakeChrf, "answer text overlap (no judge)", "strings"},
      {ExactMatchInfo, MakeExactMatch, "answer text overlap (no judge)", "strings"},
      {StringPresenceInfo, MakeStringPresence, "answer text overlap (no judge)", "strings"},
      {StringSimilarityInfo, MakeStringSimilarity, "answer text overlap (no judge)", "strings"},
      {ToolCallAccuracyInfo, MakeToolCallAccuracy, "agents and tools (no judge)", "agents"},
      {ToolCallF1Info, MakeToolCallF1, "agents and tools (no judge)", "agents"},
      {DataCompareInfo, MakeDataCompare, "SQL and data (no judge)", "sql"},
      {AnswerAccuracyInfo, MakeAnswerAccuracy, "NVIDIA single-rating metrics (judged)", "criteria"},
      {ContextRelevanceInfo, MakeContextRelevance, "NVIDIA single-rating metrics (judged)",
       "criteria"},
      {ResponseGroundednessInfo, MakeResponseGroundedness, "NVIDIA single-rating metrics (judged)",
       "criteria"},
      {AspectCriticInfo, MakeAspectCritic, "your own criteria (judged)", "criteria"},
      {SimpleCriteriaInfo, MakeSimpleCriteria, "your own criteria (judged)", "criteria"},
      {RubricsScoreInfo, MakeRubricsScore, "your own criteria (judged)", "criteria"},
      {InstanceRubricsInfo, MakeInstanceRubrics, "your own criteria (judged)", "criteria"},
      {GEvalInfo, MakeGEval, "your own criteria (judged)", "criteria"},
      {SummarizationScoreInfo, MakeSummarizationScore, "summaries (judged)", "summaries"},
      {AgentGoalAccuracyInfo, MakeAgentGoalAccuracy, "agents and tools (judged)", "agents"},
      {TopicAdherenceInfo, MakeTopicAdherence, "agents and tools (judged)", "agents"},
      {SqlEquivalenceInfo, MakeSqlEquivalence, "SQL and data (judged)", "sql"},
      {TurnFaithfulnessInfo, MakeTurnFaithfulness, "conversations, turn by turn (judged)",
       "conversation"},
      {TurnResponseRelevancyInfo, MakeTurnResponseRelevancy, "conversations, turn by turn (judged)",
       "conversation"},
      {TurnContextPrecisionInfo, MakeTurnContextPrecision, "conversations, turn by turn (judged)",
       "conversation"},
      {TurnContextRecallInfo, MakeTurnContextRecall, "conversations, turn by turn (judged)",
       "conversation"},
      {TurnContextRelevanceInfo, MakeTurnContextRelevance, "conversations, turn by turn (judged)",
       "conversation"},
      {KnowledgeRetentionInfo, MakeKnowledgeRetention, "conversations, turn by turn (judged)",
       "conversation"},
      {ConversationCompletenessInfo, MakeConversationCompleteness,
       "conversations, turn by turn (judged)", "conversation"},
      // Only a model reads a role: with the other judged criteria, not in the conversation
      // group the offline judge scores.
      {RoleAdherenceInfo, MakeRoleAdherence, "conversations, turn by turn (judged)", "criteria"},
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

const RegistryEntry* FindMetricOfKey(const std::string& results_key) {
  return FindMetric(results_key.substr(0, results_key.find_first_of("(@")));
}

bool IsCoreMetric(const std::string& key) {
  const RegistryEntry* e = FindMetricOfKey(key);
  if (e == nullptr) return false;
  const MetricInfo& info = e->info();
  return &info == &FaithfulnessInfo() || &info == &ResponseRelevancyInfo() ||
         &info == &ContextPrecisionInfo() || &info == &ContextRecallInfo() ||
         &info == &IdBasedContextPrecisionInfo() || &info == &IdBasedContextRecallInfo();
}

std::string PipelineStage(const std::string& key) {
  // A per-turn metric judges the stage its row metric judges; the answers' memory and
  // completeness are the generator's.
  if (std::string_view base = TurnMetricBase(key); !base.empty()) {
    return PipelineStage(std::string(base));
  }
  if (key == KnowledgeRetentionInfo().name || key == ConversationCompletenessInfo().name ||
      key == RoleAdherenceInfo().name) {
    return "generator";
  }
  const RegistryEntry* e = FindMetricOfKey(key);
  if (e == nullptr) return "";
  const std::string selector = e->selector;
  if (selector == "retrieval" || selector == "ir") return "retriever";
  if (selector == "generation") return "generator";
  if (selector == "reference" || selector == "strings") return "reference";
  // The NVIDIA ratings each judge one stage.
  if (&e->info() == &ContextRelevanceInfo()) return "retriever";
  if (&e->info() == &ResponseGroundednessInfo()) return "generator";
  if (&e->info() == &AnswerAccuracyInfo()) return "reference";
  return "";
}

const std::vector<StageHeading>& PipelineStages() {
  static const std::vector<StageHeading> kStages = {{"retriever", "retriever"},
                                                    {"generator", "generator"},
                                                    {"reference", "against the reference"},
                                                    {"", "other"}};
  return kStages;
}

std::vector<std::string> MetricGroupNames() {
  std::vector<std::string> out = {"core", "all"};
  for (const RegistryEntry& e : MetricRegistry()) {
    if (std::find(out.begin(), out.end(), e.selector) == out.end()) out.push_back(e.selector);
  }
  return out;
}

namespace {
bool HasFields(const MetricInfo& info, FieldSet fields) {
  return (fields & info.required_fields) == info.required_fields;
}

// The metrics a group selects for rows with `fields`.
std::vector<MetricSpec> GroupSpecs(const std::string& group, FieldSet fields) {
  std::vector<MetricSpec> out;
  for (const RegistryEntry& e : MetricRegistry()) {
    const MetricInfo& info = e.info();
    if (!HasFields(info, fields)) continue;
    bool in = group == "all"    ? info.by_default
              : group == "core" ? IsCoreMetric(info.name)
                                : group == e.selector && e.make({}).has_value();  // no options
    if (in) out.push_back({info.name, {}});
  }
  return out;
}
}  // namespace

Result<std::vector<MetricSpec>> ExpandGroups(const std::vector<MetricSpec>& specs, FieldSet fields,
                                             const std::vector<UserMetricDef>& user) {
  const std::vector<std::string> groups = MetricGroupNames();
  std::vector<MetricSpec> out;
  std::set<std::string> named;  // metric names already in `out` without options
  auto add = [&](const MetricSpec& spec) {
    if (!spec.options.empty() || named.insert(spec.name).second) out.push_back(spec);
  };
  for (const MetricSpec& spec : specs) {
    bool user_named = std::any_of(user.begin(), user.end(),
                                  [&](const UserMetricDef& d) { return d.name == spec.name; });
    if (user_named || !spec.options.empty() ||
        std::find(groups.begin(), groups.end(), spec.name) == groups.end()) {
      add(spec);
      continue;
    }
    std::vector<MetricSpec> members = GroupSpecs(spec.name, fields);
    if (members.empty()) {
      std::string needs;
      for (const RegistryEntry& e : MetricRegistry()) {
        if (spec.name != e.selector && !(spec.name == "core" && IsCoreMetric(e.info().name))) {
          continue;
        }
        needs += (needs.empty() ? "" : "; ") + e.info().name + " needs " +
                 FieldSetNames(e.info().required_fields);
      }
      return InvalidArgument("--metrics " + spec.name +
                             ": no metric of the group can be scored on " +
                             "the dataset's fields (" +
                             (fields ? FieldSetNames(fields) : std::string("none tala knows")) +
                             ")" + (needs.empty() ? "" : ": " + needs));
    }
    for (const MetricSpec& m : members) add(m);
  }
  return out;
}

std::vector<MetricSpec> DefaultSpecs(FieldSet fields) {
  std::vector<MetricSpec> core = GroupSpecs("core", fields);
  return core.empty() ? GroupSpecs("all", fields) : core;
}

std::vector<MetricSpec> ConversationDefaultSpecs(bool turn_references, bool turn_unreferenced) {
  std::vector<MetricSpec> out = {{TurnFaithfulnessInfo().name, {}},
                                 {TurnResponseRelevancyInfo().name, {}}};
  if (turn_references) {
    out.push_back({TurnContextPrecisionInfo().name, {}});
    out.push_back({TurnContextRecallInfo().name, {}});
  }
  if (turn_unreferenced) out.push_back({TurnContextRelevanceInfo().name, {}});
  out.push_back({KnowledgeRetentionInfo().name, {}});
  out.push_back({ConversationCompletenessInfo().name, {}});
  return out;
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
  const RegistryEntry* e = FindMetricOfKey(key);
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
