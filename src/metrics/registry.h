#pragma once
// The one table of every metric tala implements, and the parser for --metrics specs
// ("faithfulness,factual_correctness:mode=precision,beta=0.5"). Immutable: thread-safe.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "metrics/metric_base.h"

namespace tala::metrics {

struct RegistryEntry {
  const MetricInfo& (*info)();
  MetricFactory make;
  const char* family;  // the group `tala metrics` lists it under, in registry order
  // The name that selects the family in --metrics: retrieval, generation, reference, ir,
  // strings, agents, criteria, sql, summaries.
  const char* selector;
};

const std::vector<RegistryEntry>& MetricRegistry();

// The entry whose name or alias is `name`; nullptr when none.
const RegistryEntry* FindMetric(const std::string& name);
// The entry behind a results key, or a name or alias with options ("context_precision(mode=x)",
// "precision@5"); nullptr when none.
const RegistryEntry* FindMetricOfKey(const std::string& results_key);

struct MetricSpec {
  std::string name;
  MetricOptions options;
};

// The core metrics, scored when --metrics is not given: Ragas' four (faithfulness,
// response_relevancy, context_precision, context_recall) and the retrieval pair by ids. `key` is
// a metric name, an alias, or a results key ("context_precision(mode=x)", "precision@5").
bool IsCoreMetric(const std::string& key);
// Which half of the pipeline a results key ("context_precision", "rouge(type=rouge1)") judges:
// "retriever", "generator", "reference" (the answer against a reference), or "" for the rest.
std::string PipelineStage(const std::string& results_key);
// Every value PipelineStage gives, in pipeline order, with the heading the summaries and
// reports print over its metrics: retriever, generator, against the reference, other ("").
struct StageHeading {
  const char* stage;
  const char* heading;
};
const std::vector<StageHeading>& PipelineStages();
// The names --metrics takes for a group of metrics: "core", "all" (every default metric the data
// allows) and the family selectors, in that order.
std::vector<std::string> MetricGroupNames();
// `specs` with each group name replaced by the group's metrics that rows with `fields` can be
// scored on and that need no options; other specs pass through, and a metric named twice is kept
// once. A name that `user` defines is never a group. kInvalidArgument naming the group, the
// dataset's fields and what its metrics need when a group the user named selects nothing.
Result<std::vector<MetricSpec>> ExpandGroups(const std::vector<MetricSpec>& specs, FieldSet fields,
                                             const std::vector<UserMetricDef>& user = {});
// What is scored when --metrics is not given: the core metrics the data allows, or, when the
// data allows none of them (string metrics over response and reference only), "all".
std::vector<MetricSpec> DefaultSpecs(FieldSet fields);
// What is scored when --metrics is not given and the data holds conversations whose turns carry
// their own passages: faithfulness and relevancy of each turn, the turns' retrieval (precision
// and recall when some turn carries a reference, context relevance when some turn has passages
// and no reference), knowledge retention and completeness.
std::vector<MetricSpec> ConversationDefaultSpecs(bool turn_references, bool turn_unreferenced);

// Splits a --metrics list. A comma-separated piece with '=' and no ':' continues the options of
// the metric before it; "name@k" is short for "name:k=k"; a value in double quotes may hold
// commas and colons (definition="Is it rude, or curt?"). kInvalidArgument on an empty name, a
// malformed option or an unclosed quote.
Result<std::vector<MetricSpec>> ParseMetricSpecs(const std::string& list);

// The direction of the metric behind a results key ("rouge(type=rouge2)", "precision@5");
// higher is better for keys no metric owns.
Direction DirectionOfKey(const std::string& results_key);

// Each cut-off metric (hit_rate, precision_at_k, recall_at_k, ndcg) without an explicit k
// becomes one spec per k in `ks` (`tala eval --k 1,3,5`); other specs pass through.
std::vector<MetricSpec> ExpandCutoffs(const std::vector<MetricSpec>& specs,
                                      const std::vector<int>& ks);

// Gives `rubric` ("score1" -> text) to every rubrics_score spec that has no options of its own
// (the [rubrics] table of tala.toml).
void ApplyRubric(std::vector<MetricSpec>& specs, const std::map<std::string, std::string>& rubric);

// Builds the metrics of a spec list; a spec named like one of `user` (without options) builds
// that user-defined metric. kNotFound names an unknown metric and lists the known ones.
Result<std::vector<std::unique_ptr<Metric>>> CreateMetrics(
    const std::vector<MetricSpec>& specs, const std::vector<UserMetricDef>& user = {});

}  // namespace tala::metrics
