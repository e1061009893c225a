#include "metrics/factual_correctness.h"

#include <charconv>
#include <cstring>
#include <utility>

namespace tala::metrics {

const MetricInfo& FactualCorrectnessInfo() {
  static const MetricInfo kInfo{
      .name = "factual_correctness",
      .aliases = {},
      .required_fields = Field::kResponse | Field::kReference,
      .tasks = JudgeTask::kCheckClaimsAgainstReference | JudgeTask::kFindReferenceClaimsInResponse,
      .needs_llm = true,
      .direction = Direction::kHigherIsBetter,
      .summary = "precision, recall or F-beta of the response's claims against the reference's",
      .offline_measured =
          "HaluEval, held-out half: the right answer above a hallucinated one in 88.7% of "
          "pairs (53 ties of 234; reference: the passage sentence that holds the answer)",
      .offline_misses =
          "a short right answer against a long reference: the reference's other claims "
          "count as missing, so it scores low though right",
  };
  return kInfo;
}

double FBeta(size_t tp, size_t fp, size_t fn, double beta) {
  double precision = tp + fp == 0 ? 0.0 : static_cast<double>(tp) / (tp + fp);
  double recall = tp + fn == 0 ? 0.0 : static_cast<double>(tp) / (tp + fn);
  if (precision == 0 && recall == 0) return 0.0;
  double b2 = beta * beta;
  return (1 + b2) * precision * recall / (b2 * precision + recall);
}

namespace {
// "TP 2, FP 1, FN 0" without printf: a reason is built for every scored row.
std::string Counts(size_t tp, size_t fp, size_t fn) {
  char buf[80];
  char* p = buf;
  for (auto [label, n] :
       {std::pair<const char*, size_t>{"TP ", tp}, {", FP ", fp}, {", FN ", fn}}) {
    size_t len = std::strlen(label);
    std::memcpy(p, label, len);
    p = std::to_chars(p + len, buf + sizeof buf, n).ptr;
  }
  return std::string(buf, p);
}

enum class Mode { kPrecision, kRecall, kF1 };

class FactualCorrectness : public MetricBase {
 public:
  FactualCorrectness(MetricOptions options, Mode mode, double beta)
      : MetricBase(FactualCorrectnessInfo(), std::move(options)), mode_(mode), beta_(beta) {}
  TaskSet tasks() const override {
    if (mode_ == Mode::kPrecision) {
      return static_cast<TaskSet>(JudgeTask::kCheckClaimsAgainstReference);
    }
    return info().tasks;
  }
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    size_t tp = 0, fp = 0, fn = 0;
    for (const ClaimVerdict& c : *v.response_claims) (*c.correct ? tp : fp) += 1;
    if (mode_ != Mode::kPrecision) {
      for (const ReferenceClaim& c : *v.reference_claims) fn += *c.in_response ? 0 : 1;
    }
    std::string why = Counts(tp, fp, fn);
    switch (mode_) {
      case Mode::kPrecision:
        if (tp + fp == 0) return MetricValue::Undefined("the response has no claims");
        return MetricValue::Number(static_cast<double>(tp) / (tp + fp), why);
      case Mode::kRecall:
        if (tp + fn == 0) return MetricValue::Undefined("no claims to recall");
        return MetricValue::Number(static_cast<double>(tp) / (tp + fn), why);
      case Mode::kF1:
        if (tp + fp + fn == 0) return MetricValue::Undefined("neither side has claims");
        return MetricValue::Number(FBeta(tp, fp, fn, beta_), why);
    }
    return MetricValue::Undefined("unknown mode");
  }

 private:
  Mode mode_;
  double beta_;
};
}  // namespace

Result<std::unique_ptr<Metric>> MakeFactualCorrectness(const MetricOptions& options) {
  const std::string& name = FactualCorrectnessInfo().name;
  TALA_RETURN_IF_ERROR(CheckOptionNames(name, options, {"mode", "beta"}));
  Mode mode = Mode::kF1;
  if (auto it = options.find("mode"); it != options.end()) {
    if (it->second == "precision")
      mode = Mode::kPrecision;
    else if (it->second == "recall")
      mode = Mode::kRecall;
    else if (it->second != "f1")
      return InvalidArgument("metric " + name + ": mode must be precision, recall or f1");
  }
  TALA_ASSIGN_OR_RETURN(double beta, NumberOption(name, options, "beta", 1.0, 1e-6, 1e6));
  return std::unique_ptr<Metric>(new FactualCorrectness(options, mode, beta));
}

}  // namespace tala::metrics
