#include "metrics/faithfulness.h"

#include <cstdio>

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
      .offline_measured =
          "HaluEval QA, held-out half: the right answer scores above a hallucinated one "
          "in 99.0% of pairs (AUROC 0.987); a knowledge sentence above itself with one detail "
          "edited, on six sources (bench/judge_sources.py): negation 1.00, a value 1.00, two "
          "names swapped 0.95; FEVER's claims with a negation added 0.97",
      .offline_misses =
          "a single changed detail in a claim worded unlike its context (FEVER's claims: two "
          "names swapped 0.69, a value 0.90); outside English, a flipped fact only when it "
          "brings in a word, number or (Chinese, Japanese) characters the context lacks, and "
          "never a value moved within the context (the row says \"not checked\")",
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
    std::string reason = Ratio(supported, claims.size(), "claims supported");
    // A judge that grades support (the offline one) gives a value that is not the count: the
    // reason says so, so that 0.5 beside "1 of 1 claims supported" reads right (F3).
    if (expected != static_cast<double>(supported)) {
      char graded[64];
      std::snprintf(graded, sizeof graded, "; graded support %.2f of %zu", expected, claims.size());
      reason += graded;
    }
    // What the judge could not check of the claims it found supported (the offline judge on
    // a language its structure checks do not read): said once, so a high score is read rightly.
    for (const ClaimVerdict& c : claims) {
      if (!c.unchecked.empty()) {
        reason += "; not checked: " + c.unchecked;
        break;
      }
    }
    return MetricValue::Number(expected / claims.size(), std::move(reason));
  }
};
}  // namespace

Result<std::unique_ptr<Metric>> MakeFaithfulness(const MetricOptions& options) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(FaithfulnessInfo().name, options, {}));
  return std::unique_ptr<Metric>(new Faithfulness(FaithfulnessInfo(), options));
}

}  // namespace tala::metrics
