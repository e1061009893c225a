#include "metrics/semantic_similarity.h"

#include <cstdio>

namespace tala::metrics {

const MetricInfo& SemanticSimilarityInfo() {
  static const MetricInfo kInfo{
      .name = "semantic_similarity",
      .aliases = {"answer_similarity"},
      .required_fields = Field::kResponse | Field::kReference,
      .tasks = static_cast<TaskSet>(JudgeTask::kEmbedResponseAndReference),
      .needs_embeddings = true,
      .direction = Direction::kHigherIsBetter,
      .summary = "cosine of the response and reference embeddings",
      .offline_measured =
          "with the sentence encoder, HaluEval, held-out half: the right answer above a "
          "hallucinated one in only 12.4% of pairs (reference: the passage sentence that "
          "holds the answer)",
      .offline_misses =
          "correctness: it measures closeness of wording and topic (as an embedding model "
          "does in Ragas), so a fluent wrong sentence near the reference's words beats a "
          "bare right answer",
  };
  return kInfo;
}

namespace {
class SemanticSimilarity : public MetricBase {
 public:
  SemanticSimilarity(MetricOptions options, std::optional<double> threshold)
      : MetricBase(SemanticSimilarityInfo(), std::move(options)), threshold_(threshold) {}
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    double cosine = *v.response_reference_similarity;
    std::string why = Fixed4("cosine", cosine);
    if (threshold_) return MetricValue::Number(cosine >= *threshold_ ? 1.0 : 0.0, why);
    return MetricValue::Number(cosine, why);
  }

 private:
  std::optional<double> threshold_;
};
}  // namespace

Result<std::unique_ptr<Metric>> MakeSemanticSimilarity(const MetricOptions& options) {
  const std::string& name = SemanticSimilarityInfo().name;
  TALA_RETURN_IF_ERROR(CheckOptionNames(name, options, {"threshold"}));
  std::optional<double> threshold;
  if (options.count("threshold")) {
    TALA_ASSIGN_OR_RETURN(threshold, NumberOption(name, options, "threshold", 0, -1, 1));
  }
  return std::unique_ptr<Metric>(new SemanticSimilarity(options, threshold));
}

}  // namespace tala::metrics
