#include "metrics/id_based.h"

#include <unordered_set>

namespace tala::metrics {

namespace {
constexpr FieldSet kFields = Field::kRetrievedContextIds | Field::kReferenceContextIds;
}

const MetricInfo& IdBasedContextPrecisionInfo() {
  static const MetricInfo kInfo{
      .name = "id_based_context_precision",
      .required_fields = kFields,
      .summary = "share of the distinct retrieved ids that are reference ids",
  };
  return kInfo;
}

const MetricInfo& IdBasedContextRecallInfo() {
  static const MetricInfo kInfo{
      .name = "id_based_context_recall",
      .required_fields = kFields,
      .summary = "share of the distinct reference ids that were retrieved",
  };
  return kInfo;
}

namespace {
class IdBased : public MetricBase {
 public:
  IdBased(const MetricInfo& info, MetricOptions options, bool recall)
      : MetricBase(info, std::move(options)), recall_(recall) {}
  MetricValue Score(const Sample& s, const Verdicts&) const override {
    std::unordered_set<std::string> retrieved(s.retrieved_context_ids->begin(),
                                              s.retrieved_context_ids->end());
    std::unordered_set<std::string> reference(s.reference_context_ids->begin(),
                                              s.reference_context_ids->end());
    size_t common = 0;
    for (const std::string& id : retrieved) common += reference.count(id);
    size_t whole = recall_ ? reference.size() : retrieved.size();
    if (whole == 0) {
      return MetricValue::Undefined(recall_ ? "no reference ids" : "no retrieved ids");
    }
    return MetricValue::Number(static_cast<double>(common) / whole,
                               Ratio(common, whole, recall_ ? "reference ids retrieved"
                                                            : "retrieved ids relevant"));
  }

 private:
  bool recall_;
};
}  // namespace

Result<std::unique_ptr<Metric>> MakeIdBasedContextPrecision(const MetricOptions& options) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(IdBasedContextPrecisionInfo().name, options, {}));
  return std::unique_ptr<Metric>(new IdBased(IdBasedContextPrecisionInfo(), options, false));
}
Result<std::unique_ptr<Metric>> MakeIdBasedContextRecall(const MetricOptions& options) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(IdBasedContextRecallInfo().name, options, {}));
  return std::unique_ptr<Metric>(new IdBased(IdBasedContextRecallInfo(), options, true));
}

}  // namespace tala::metrics
