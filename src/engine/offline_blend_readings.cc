#include "engine/offline_blend_readings.h"

#include "engine/row_scorer.h"
#include "io/readers/dataset_reader.h"
#include "judges/offline/offline_judge.h"
#include "judges/offline/relevance_blend.h"
#include "metrics/registry.h"

namespace tala {

Result<BlendSpec> OfflineBlendOf(const std::string& metric) {
  namespace offline = judges::offline;
  if (metric == "response_relevancy" || metric == "answer_relevancy") {
    return BlendSpec{"response_relevancy", offline::ResponseBlendNames(),
                     offline::BuiltInResponseWeights()};
  }
  if (metric == "context_relevance") {
    return BlendSpec{"context_relevance", offline::ContextBlendNames(),
                     offline::BuiltInContextWeights()};
  }
  return NotFound("the offline judge reads " + metric +
                  " through no blend of weights (only response_relevancy and context_relevance)");
}

std::vector<double>& WeightsOf(OfflineBlend& blend, const BlendSpec& spec) {
  return spec.metric == "context_relevance" ? blend.context_relevance : blend.response_relevancy;
}

Result<BlendReadings> ReadOfflineBlend(const std::string& dataset, const std::set<std::string>& ids,
                                       const BlendSpec& spec) {
  std::string why;
  if (judges::offline::EmbedderName(&why) == "hashed") {
    return NotFound("the offline judge's relevance blends read its sentence encoder: " + why);
  }
  TALA_ASSIGN_OR_RETURN(auto metrics, metrics::CreateMetrics({{spec.metric, {}}}));
  judges::offline::OfflineJudge judge;
  judges::offline::OfflineJudge::BlendTrace trace;
  judge.set_trace(&trace);
  RowScorer scorer(metrics, &judge, judge.name());
  TALA_ASSIGN_OR_RETURN(auto reader, io::OpenDataset(dataset));
  BlendReadings out;
  const bool context = spec.metric == "context_relevance";
  while (auto row = reader->Next()) {
    if (!row->has_value()) {
      if (row->error().code() != ErrorCode::kDataError) return row->error();
      continue;  // a bad row: tala eval skipped or refused it too, and scored nothing of it
    }
    const Sample& sample = **row;
    if (!ids.count(sample.id)) continue;
    if (sample.is_multi_turn()) {
      ++out.conversations;
      continue;
    }
    trace = {};
    Result<Verdicts> verdicts = scorer.Ask(sample);
    if (!verdicts) {
      ++out.unread;
      why = verdicts.error().ToString();
      continue;
    }
    BlendReading reading;
    if (context) {
      reading.vectors = std::move(trace.context);
    } else {
      const bool noncommittal = verdicts->generated_questions &&
                                !verdicts->generated_questions->empty() &&
                                verdicts->generated_questions->front().noncommittal;
      if (!noncommittal) reading.vectors = std::move(trace.response);
    }
    out.rows[sample.id] = std::move(reading);
  }
  if (out.unread > 0) out.why_unread = why;
  return out;
}

}  // namespace tala
