#include "metrics/context_precision.h"

namespace tala::metrics {

const MetricInfo& ContextPrecisionInfo() {
  static const MetricInfo kInfo{
      .name = "context_precision",
      .aliases = {"llm_context_precision_with_reference", "context_precision_with_reference"},
      .required_fields = Field::kUserInput | Field::kRetrievedContexts | Field::kReference,
      .tasks = static_cast<TaskSet>(JudgeTask::kRateChunksForReference),
      .needs_llm = true,
      .direction = Direction::kHigherIsBetter,
      .summary =
          "rank-aware mean of precision@k over the ranks holding a chunk useful for the "
          "reference",
      .offline_measured =
          "HaluEval, held-out half: the question's own passage above the next question's "
          "in 97.6% of pairs (reference and response: the right answer)",
      .offline_misses =
          "usefulness that takes reasoning, such as a chunk useful only together with "
          "another; the order of chunks from one page is not measured",
  };
  return kInfo;
}

const MetricInfo& ContextPrecisionWithoutReferenceInfo() {
  static const MetricInfo kInfo{
      .name = "context_precision_without_reference",
      .aliases = {"llm_context_precision_without_reference", "context_utilization"},
      .required_fields = Field::kUserInput | Field::kRetrievedContexts | Field::kResponse,
      .tasks = static_cast<TaskSet>(JudgeTask::kRateChunksForResponse),
      .needs_llm = true,
      .direction = Direction::kHigherIsBetter,
      .summary =
          "context precision with chunks judged against the response instead of a "
          "reference",
      .offline_measured =
          "HaluEval, held-out half: the question's own passage above the next question's "
          "in 97.6% of pairs (response: the right answer)",
      .offline_misses =
          "the same as context_precision, and a chunk that supports a wrong response "
          "counts as useful",
  };
  return kInfo;
}

namespace {
class ContextPrecision : public MetricBase {
 public:
  ContextPrecision(const MetricInfo& info, MetricOptions options, bool against_response)
      : MetricBase(info, std::move(options)), against_response_(against_response) {}
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    const std::vector<bool>& rel =
        against_response_ ? *v.chunk_relevant_to_response : *v.chunk_relevant;
    size_t relevant = 0;
    for (bool r : rel) relevant += r ? 1 : 0;
    return MetricValue::Number(AveragePrecision(rel),
                               Ratio(relevant, rel.size(), "chunks relevant"));
  }

 private:
  bool against_response_;
};
}  // namespace

Result<std::unique_ptr<Metric>> MakeContextPrecision(const MetricOptions& options) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(ContextPrecisionInfo().name, options, {}));
  return std::unique_ptr<Metric>(new ContextPrecision(ContextPrecisionInfo(), options, false));
}

Result<std::unique_ptr<Metric>> MakeContextPrecisionWithoutReference(const MetricOptions& options) {
  const MetricInfo& info = ContextPrecisionWithoutReferenceInfo();
  TALA_RETURN_IF_ERROR(CheckOptionNames(info.name, options, {}));
  return std::unique_ptr<Metric>(new ContextPrecision(info, options, true));
}

}  // namespace tala::metrics
