#include "metrics/id_based.h"

#include <algorithm>

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
std::vector<std::string_view> SortedUnique(const std::vector<std::string>& ids) {
  std::vector<std::string_view> out(ids.begin(), ids.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

class IdBased : public MetricBase {
 public:
  IdBased(const MetricInfo& info, MetricOptions options, bool recall)
      : MetricBase(info, std::move(options)), recall_(recall) {}
  MetricValue Score(const Sample& s, const Verdicts&) const override {
    // Sorted, de-duplicated views: rankings are short, so this beats hashing.
    std::vector<std::string_view> retrieved = SortedUnique(*s.retrieved_context_ids);
    std::vector<std::string_view> reference = SortedUnique(*s.reference_context_ids);
    size_t common = 0;
    for (std::string_view id : retrieved) {
      common += std::binary_search(reference.begin(), reference.end(), id) ? 1 : 0;
    }
    size_t whole = recall_ ? reference.size() : retrieved.size();
    if (whole == 0) {
      return MetricValue::Undefined(recall_ ? "no reference ids" : "no retrieved ids");
    }
    return MetricValue::Number(
        static_cast<double>(common) / whole,
        Ratio(common, whole, recall_ ? "reference ids retrieved" : "retrieved ids relevant"));
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
