#include "metrics/faithfulness.h"

namespace tala::metrics {

const MetricInfo& FaithfulnessInfo() {
  static const MetricInfo kInfo{
      .name = "faithfulness",
      .aliases = {},
      .required_fields = Field::kUserInput | Field::kResponse | Field::kRetrievedContexts,
      .tasks = static_cast<TaskSet>(JudgeTask::kVerifyResponseClaims),
      .needs_llm = true,
      .direction = Direction::kHigherIsBetter,
      .summary = "share of the response's claims supported by the retrieved context",
  };
  return kInfo;
}

namespace {
class Faithfulness : public MetricBase {
 public:
  using MetricBase::MetricBase;
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    const auto& claims = *v.response_claims;
    if (claims.empty()) return MetricValue::Undefined("the response has no claims to verify");
    size_t supported = 0;
    double expected = 0;
    for (const ClaimVerdict& c : claims) {
      supported += *c.supported ? 1 : 0;
      expected += c.support_score ? *c.support_score : (*c.supported ? 1.0 : 0.0);
    }
    return MetricValue::Number(expected / claims.size(),
                               Ratio(supported, claims.size(), "claims supported"));
  }
};
}  // namespace

Result<std::unique_ptr<Metric>> MakeFaithfulness(const MetricOptions& options) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(FaithfulnessInfo().name, options, {}));
  return std::unique_ptr<Metric>(new Faithfulness(FaithfulnessInfo(), options));
}

}  // namespace tala::metrics
