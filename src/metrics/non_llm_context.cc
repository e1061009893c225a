#include "metrics/non_llm_context.h"

#include <algorithm>

#include "metrics/string_distance.h"

namespace tala::metrics {

namespace {
constexpr FieldSet kFields = Field::kRetrievedContexts | Field::kReferenceContexts;

class NonLlmContext : public MetricBase {
 public:
  NonLlmContext(const MetricInfo& info, MetricOptions options, bool recall, double threshold,
                Distance d)
      : MetricBase(info, std::move(options)),
        recall_(recall),
        threshold_(threshold),
        distance_(d) {}
  MetricValue Score(const Sample& s, const Verdicts&) const override {
    const auto& retrieved = *s.retrieved_contexts;
    const auto& reference = *s.reference_contexts;
    if (reference.empty()) return MetricValue::Undefined("no reference contexts");
    std::vector<std::vector<char32_t>> ret_cp, ref_cp;
    for (const auto& r : retrieved) ret_cp.push_back(CodePoints(r));
    for (const auto& r : reference) ref_cp.push_back(CodePoints(r));
    auto best = [&](const std::vector<char32_t>& x, const std::vector<std::vector<char32_t>>& ys) {
      double b = 0;
      for (const auto& y : ys) b = std::max(b, StringSimilarity(x, y, distance_));
      return b;
    };
    if (recall_) {
      size_t found = 0;
      for (const auto& r : ref_cp) found += best(r, ret_cp) > threshold_ ? 1 : 0;
      return MetricValue::Number(static_cast<double>(found) / reference.size(),
                                 Ratio(found, reference.size(), "reference contexts retrieved"));
    }
    std::vector<bool> relevant;
    for (const auto& r : ret_cp) relevant.push_back(best(r, ref_cp) >= threshold_);
    size_t n = std::count(relevant.begin(), relevant.end(), true);
    return MetricValue::Number(AveragePrecision(relevant),
                               Ratio(n, relevant.size(), "chunks match a reference context"));
  }

 private:
  bool recall_;
  double threshold_;
  Distance distance_;
};

Result<std::unique_ptr<Metric>> Make(const MetricInfo& info, const MetricOptions& o, bool recall) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(info.name, o, {"threshold", "distance"}));
  TALA_ASSIGN_OR_RETURN(double threshold, NumberOption(info.name, o, "threshold", 0.5, 0, 1));
  TALA_ASSIGN_OR_RETURN(Distance d, ParseDistance(info.name, o));
  return std::unique_ptr<Metric>(new NonLlmContext(info, o, recall, threshold, d));
}
}  // namespace

const MetricInfo& NonLlmContextPrecisionInfo() {
  static const MetricInfo kInfo{
      .name = "non_llm_context_precision_with_reference",
      .required_fields = kFields,
      .summary =
          "context precision with chunks matched to reference contexts by string "
          "similarity (no judge)",
      .version = "2",  // 2: Jaro and Jaro-Winkler as rapidfuzz computes them
  };
  return kInfo;
}
const MetricInfo& NonLlmContextRecallInfo() {
  static const MetricInfo kInfo{
      .name = "non_llm_context_recall",
      .required_fields = kFields,
      .summary =
          "share of reference contexts matched by a retrieved chunk's string similarity "
          "(no judge)",
      .version = "2",  // 2: Jaro and Jaro-Winkler as rapidfuzz computes them
  };
  return kInfo;
}
Result<std::unique_ptr<Metric>> MakeNonLlmContextPrecision(const MetricOptions& o) {
  return Make(NonLlmContextPrecisionInfo(), o, false);
}
Result<std::unique_ptr<Metric>> MakeNonLlmContextRecall(const MetricOptions& o) {
  return Make(NonLlmContextRecallInfo(), o, true);
}

}  // namespace tala::metrics
