#include "metrics/context_entity_recall.h"

#include <cctype>
#include <set>

namespace tala::metrics {

const MetricInfo& ContextEntityRecallInfo() {
  static const MetricInfo kInfo{
      .name = "context_entity_recall",
      .aliases = {"context_entities_recall"},
      .required_fields = Field::kReference | Field::kRetrievedContexts,
      .tasks = static_cast<TaskSet>(JudgeTask::kExtractEntities),
      .needs_llm = true,
      .direction = Direction::kHigherIsBetter,
      .summary = "share of the reference's entities that the retrieved context mentions",
  };
  return kInfo;
}

namespace {
std::set<std::string> Folded(const std::vector<std::string>& items) {
  std::set<std::string> out;
  for (std::string s : items) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!s.empty()) out.insert(std::move(s));
  }
  return out;
}

class ContextEntityRecall : public MetricBase {
 public:
  using MetricBase::MetricBase;
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    std::set<std::string> reference = Folded(*v.reference_entities);
    std::set<std::string> context = Folded(*v.context_entities);
    if (reference.empty()) return MetricValue::Undefined("the reference names no entity");
    size_t found = 0;
    for (const std::string& e : reference) found += context.count(e);
    return MetricValue::Number(static_cast<double>(found) / reference.size(),
                               Ratio(found, reference.size(), "reference entities in context"));
  }
};
}  // namespace

Result<std::unique_ptr<Metric>> MakeContextEntityRecall(const MetricOptions& options) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(ContextEntityRecallInfo().name, options, {}));
  return std::unique_ptr<Metric>(new ContextEntityRecall(ContextEntityRecallInfo(), options));
}

}  // namespace tala::metrics
