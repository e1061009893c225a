#include "metrics/noise_sensitivity.h"

namespace tala::metrics {

namespace {
constexpr TaskSet kTasks = JudgeTask::kVerifyResponseClaims |
                           JudgeTask::kCheckClaimsAgainstReference |
                           JudgeTask::kRateChunksForReference;
constexpr FieldSet kFields =
    Field::kUserInput | Field::kResponse | Field::kReference | Field::kRetrievedContexts;
}  // namespace

const MetricInfo& NoiseSensitivityInfo() {
  static const MetricInfo kInfo{
      .name = "noise_sensitivity",
      .aliases = {"noise_sensitivity_relevant"},
      .required_fields = kFields,
      .tasks = kTasks,
      .needs_llm = true,
      .direction = Direction::kLowerIsBetter,
      .summary = "share of response claims that are wrong yet supported by a relevant chunk",
      .offline_measured =
          "HaluEval, held-out half: right vs hallucinated answer 54.7%, 212 of 234 pairs "
          "tied",
      .offline_misses =
          "by its definition it counts only wrong claims that a relevant chunk supports; "
          "a hallucination the context does not support scores 0, as a right answer does",
  };
  return kInfo;
}

const MetricInfo& NoiseSensitivityIrrelevantInfo() {
  static const MetricInfo kInfo{
      .name = "noise_sensitivity_irrelevant",
      .aliases = {},
      .required_fields = kFields,
      .tasks = kTasks,
      .needs_llm = true,
      .direction = Direction::kLowerIsBetter,
      .summary = "share of response claims that are wrong and supported only by irrelevant chunks",
      .offline_measured =
          "HaluEval, held-out half: every one of 234 right vs hallucinated pairs tied",
      .offline_misses =
          "by its definition it counts only wrong claims that an irrelevant chunk "
          "supports; a hallucination no chunk supports scores 0, as a right answer does",
  };
  return kInfo;
}

namespace {
class NoiseSensitivity : public MetricBase {
 public:
  NoiseSensitivity(const MetricInfo& info, MetricOptions options, bool irrelevant_mode)
      : MetricBase(info, std::move(options)), irrelevant_mode_(irrelevant_mode) {}
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    const auto& claims = *v.response_claims;
    const std::vector<bool>& relevant = *v.chunk_relevant;
    if (claims.empty()) return MetricValue::Undefined("the response has no claims");
    size_t noisy = 0;
    for (const ClaimVerdict& c : claims) {
      if (*c.correct) continue;
      bool by_relevant = false, by_irrelevant = false;
      for (int chunk_idx : c.supported_by) {
        (relevant[chunk_idx] ? by_relevant : by_irrelevant) = true;
      }
      noisy += (irrelevant_mode_ ? by_irrelevant && !by_relevant : by_relevant) ? 1 : 0;
    }
    return MetricValue::Number(
        static_cast<double>(noisy) / claims.size(),
        Ratio(noisy, claims.size(),
              irrelevant_mode_ ? "claims wrong and taken from irrelevant chunks"
                               : "claims wrong and taken from relevant chunks"));
  }

 private:
  bool irrelevant_mode_;
};

Result<std::unique_ptr<Metric>> Make(const MetricInfo& info, const MetricOptions& options,
                                     bool irrelevant_default) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(info.name, options, {"mode"}));
  bool irrelevant = irrelevant_default;
  if (auto it = options.find("mode"); it != options.end()) {
    if (it->second != "relevant" && it->second != "irrelevant") {
      return InvalidArgument("metric " + info.name + ": mode must be relevant or irrelevant");
    }
    irrelevant = it->second == "irrelevant";
  }
  return std::unique_ptr<Metric>(new NoiseSensitivity(info, options, irrelevant));
}
}  // namespace

Result<std::unique_ptr<Metric>> MakeNoiseSensitivity(const MetricOptions& options) {
  return Make(NoiseSensitivityInfo(), options, false);
}
Result<std::unique_ptr<Metric>> MakeNoiseSensitivityIrrelevant(const MetricOptions& options) {
  return Make(NoiseSensitivityIrrelevantInfo(), options, true);
}

}  // namespace tala::metrics
