#include "metrics/answer_correctness.h"

#include <cstdio>

#include "metrics/factual_correctness.h"

namespace tala::metrics {

const MetricInfo& AnswerCorrectnessInfo() {
  static const MetricInfo kInfo{
      .name = "answer_correctness",
      .aliases = {},
      .required_fields = Field::kUserInput | Field::kResponse | Field::kReference,
      .tasks = JudgeTask::kCheckClaimsAgainstReference | JudgeTask::kFindReferenceClaimsInResponse |
               JudgeTask::kEmbedResponseAndReference,
      .needs_llm = true,
      .needs_embeddings = true,
      .direction = Direction::kHigherIsBetter,
      .summary = "0.75 x factual F1 + 0.25 x semantic similarity against the reference",
      .offline_measured =
          "HaluEval, held-out half: the right answer above a hallucinated one in 80.8% of "
          "pairs (reference: the passage sentence that holds the answer)",
      .offline_misses =
          "its similarity part rewards a fluent wrong sentence that repeats the "
          "reference's words over a bare right answer",
  };
  return kInfo;
}

namespace {
class AnswerCorrectness : public MetricBase {
 public:
  AnswerCorrectness(MetricOptions options, double wf, double ws, double beta)
      : MetricBase(AnswerCorrectnessInfo(), std::move(options)), wf_(wf), ws_(ws), beta_(beta) {}
  TaskSet tasks() const override {
    TaskSet t = info().tasks;
    if (ws_ == 0) t &= ~static_cast<TaskSet>(JudgeTask::kEmbedResponseAndReference);
    return t;
  }
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    size_t tp = 0, fp = 0, fn = 0;
    for (const ClaimVerdict& c : *v.response_claims) (*c.correct ? tp : fp) += 1;
    for (const ReferenceClaim& c : *v.reference_claims) fn += *c.in_response ? 0 : 1;
    double f = tp + fp + fn == 0 ? 1.0 : FBeta(tp, fp, fn, beta_);
    double sim = ws_ == 0 ? 0.0 : *v.response_reference_similarity;
    std::string why = Fixed4("factual F", f) + Fixed4(", similarity", sim);
    return MetricValue::Number((wf_ * f + ws_ * sim) / (wf_ + ws_), why);
  }

 private:
  double wf_, ws_, beta_;
};
}  // namespace

Result<std::unique_ptr<Metric>> MakeAnswerCorrectness(const MetricOptions& options) {
  const std::string& name = AnswerCorrectnessInfo().name;
  TALA_RETURN_IF_ERROR(
      CheckOptionNames(name, options, {"factuality_weight", "similarity_weight", "beta"}));
  TALA_ASSIGN_OR_RETURN(double wf, NumberOption(name, options, "factuality_weight", 0.75, 0, 1e6));
  TALA_ASSIGN_OR_RETURN(double ws, NumberOption(name, options, "similarity_weight", 0.25, 0, 1e6));
  TALA_ASSIGN_OR_RETURN(double beta, NumberOption(name, options, "beta", 1.0, 1e-6, 1e6));
  if (wf + ws == 0) return InvalidArgument("metric " + name + ": the weights cannot both be 0");
  return std::unique_ptr<Metric>(new AnswerCorrectness(options, wf, ws, beta));
}

}  // namespace tala::metrics
