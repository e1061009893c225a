#include "metrics/topic_adherence.h"

namespace tala::metrics {

namespace {
enum class Mode { kPrecision, kRecall, kF1 };

class TopicAdherence : public QuestionMetric {
 public:
  TopicAdherence(MetricOptions options, JudgeQuestion q, Mode mode)
      : QuestionMetric(TopicAdherenceInfo(), std::move(options), std::move(q)), mode_(mode) {}
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    const JudgedAnswer& a = AnswerIn(v);
    if (a.items.empty()) return MetricValue::Number(0.0, "no topics found");
    size_t tp = 0, fp = 0, fn = 0;
    for (const AnswerItem& t : a.items) {
      bool answered = t.flags.at("answered"), in_ref = t.flags.at("in_reference");
      tp += answered && in_ref ? 1 : 0;
      fp += answered && !in_ref ? 1 : 0;
      fn += !answered && in_ref ? 1 : 0;
    }
    auto ratio = [](size_t a, size_t b) {
      return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
    };
    double p = ratio(tp, tp + fp), r = ratio(tp, tp + fn);
    double value = mode_ == Mode::kPrecision ? p
                   : mode_ == Mode::kRecall  ? r
                   : p + r > 0               ? 2 * p * r / (p + r)
                                             : 0.0;
    std::string why = std::to_string(a.items.size()) + " topics: " + std::to_string(tp) +
                      " answered on reference, " + std::to_string(fp) + " answered off it, " +
                      std::to_string(fn) + " refused on it";
    return MetricValue::Number(value, why);
  }

 private:
  Mode mode_;
};
}  // namespace

const MetricInfo& TopicAdherenceInfo() {
  static const MetricInfo kInfo{
      .name = "topic_adherence",
      .required_fields = Field::kUserInput | Field::kReferenceTopics,
      .tasks = static_cast<TaskSet>(JudgeTask::kAnswerQuestions),
      .needs_llm = true,
      .summary = "answers kept to reference_topics (mode=precision|recall|f1)",
      .offline_note = "needs an LLM judge: undefined with the offline judge",
  };
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeTopicAdherence(const MetricOptions& options) {
  const std::string& m = TopicAdherenceInfo().name;
  TALA_RETURN_IF_ERROR(CheckOptionNames(m, options, {"mode"}));
  Mode mode = Mode::kF1;
  if (auto it = options.find("mode"); it != options.end()) {
    if (it->second == "precision") {
      mode = Mode::kPrecision;
    } else if (it->second == "recall") {
      mode = Mode::kRecall;
    } else if (it->second != "f1") {
      return InvalidArgument("metric topic_adherence: mode must be precision, recall or f1");
    }
  }
  JudgeQuestion q;
  q.kind = JudgeQuestion::Kind::kTopics;
  q.key = m;  // the three modes share one answer
  return std::unique_ptr<Metric>(std::make_unique<TopicAdherence>(options, std::move(q), mode));
}

}  // namespace tala::metrics
