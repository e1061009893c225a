#include "metrics/context_entity_recall.h"

#include <algorithm>
#include <cctype>

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
      .offline_measured =
          "HaluEval, held-out half: the question's own passage above the next question's "
          "in 95.5% of 110 pairs",
      .offline_misses =
          "entities written differently in the reference and the context (abbreviations, "
          "other spellings)",
  };
  return kInfo;
}

namespace {
// Case-folded (ASCII), sorted and de-duplicated: entity lists are short.
std::vector<std::string> Folded(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (std::string s : items) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!s.empty()) out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

class ContextEntityRecall : public MetricBase {
 public:
  using MetricBase::MetricBase;
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    std::vector<std::string> reference = Folded(*v.reference_entities);
    std::vector<std::string> context = Folded(*v.context_entities);
    if (reference.empty()) return MetricValue::Undefined("the reference names no entity");
    size_t found = 0;
    for (const std::string& e : reference) {
      found += std::binary_search(context.begin(), context.end(), e) ? 1 : 0;
    }
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
