#include "metrics/summarization_score.h"

#include <algorithm>

#include "metrics/string_distance.h"

namespace tala::metrics {

namespace {
class SummarizationScore : public QuestionMetric {
 public:
  SummarizationScore(MetricOptions options, JudgeQuestion q, double coeff, bool length_penalty)
      : QuestionMetric(SummarizationScoreInfo(), std::move(options), std::move(q)),
        coeff_(coeff),
        length_penalty_(length_penalty) {}
  MetricValue Score(const Sample& s, const Verdicts& v) const override {
    const JudgedAnswer& a = AnswerIn(v);
    if (a.items.empty()) return MetricValue::Undefined("the judge drew no questions from the text");
    size_t yes = 0;
    for (const AnswerItem& item : a.items) yes += item.flags.at("answered") ? 1 : 0;
    double qa = static_cast<double>(yes) / static_cast<double>(a.items.size());
    std::string why = Ratio(yes, a.items.size(), "questions answered by the summary");
    if (!length_penalty_) return MetricValue::Number(qa, why);
    std::string text;
    for (size_t i = 0; i < s.reference_contexts->size(); ++i) {
      text += (i ? "\n" : "") + (*s.reference_contexts)[i];
    }
    double text_len = static_cast<double>(CodePoints(text).size());
    double summary_len = static_cast<double>(CodePoints(*s.response).size());
    double conciseness = 1 - std::min(summary_len, text_len) / (text_len + 1e-10);
    return MetricValue::Number((1 - coeff_) * qa + coeff_ * conciseness,
                               why + "; " + Fixed4("conciseness", conciseness));
  }

 private:
  double coeff_;
  bool length_penalty_;
};
}  // namespace

const MetricInfo& SummarizationScoreInfo() {
  static const MetricInfo kInfo{
      .name = "summarization_score",
      .aliases = {"summary_score"},
      .required_fields = Field::kResponse | Field::kReferenceContexts,
      .tasks = static_cast<TaskSet>(JudgeTask::kAnswerQuestions),
      .needs_llm = true,
      .summary =
          "the summary (response) answers questions drawn from reference_contexts, "
          "with a conciseness term (coeff=0.5)",
      .offline_note = "needs an LLM judge: undefined with the offline judge",
      .by_default = false,
  };
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeSummarizationScore(const MetricOptions& options) {
  const std::string& m = SummarizationScoreInfo().name;
  TALA_RETURN_IF_ERROR(CheckOptionNames(m, options, {"coeff", "length_penalty"}));
  TALA_ASSIGN_OR_RETURN(double coeff, NumberOption(m, options, "coeff", 0.5, 0, 1));
  bool length_penalty = true;
  if (auto it = options.find("length_penalty"); it != options.end()) {
    if (it->second != "true" && it->second != "false") {
      return InvalidArgument("metric summarization_score: length_penalty must be true or false");
    }
    length_penalty = it->second == "true";
  }
  JudgeQuestion q;
  q.kind = JudgeQuestion::Kind::kSummary;
  q.key = m;
  return std::unique_ptr<Metric>(
      std::make_unique<SummarizationScore>(options, std::move(q), coeff, length_penalty));
}

}  // namespace tala::metrics
