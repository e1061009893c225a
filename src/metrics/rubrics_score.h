#pragma once
// rubrics_score and instance_rubrics: a score by a rubric, a description of each level.
//
// rubrics_score (options score1=... .. score5=..., any whole-number levels): the rubric given in
//   the options (or a [rubrics] table in tala.toml), else tala's default 1-5 rubric: a
//   reference-based one for rows with a reference, a reference-free one otherwise (Ragas ships
//   both but always uses the reference-free one).
// instance_rubrics: each row's own `rubrics` field ({"score1_description": ..., ...}).
// The scale is the level numbers the rubric names (the digits in each key: "score3_description"
// is level 3); a rubric whose keys have no numbers is scored 1..N in key order. The value is the
// judge's level, a whole number in that range; higher is better. Both share the row's one
// criteria call. Source: the Ragas RubricsScore and InstanceRubrics metrics.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& RubricsScoreInfo();
const MetricInfo& InstanceRubricsInfo();
Result<std::unique_ptr<Metric>> MakeRubricsScore(const MetricOptions& options);
Result<std::unique_ptr<Metric>> MakeInstanceRubrics(const MetricOptions& options);
}  // namespace tala::metrics
