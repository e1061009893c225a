#include "metrics/rubrics_score.h"

#include <algorithm>
#include <cctype>

namespace tala::metrics {

namespace {

using Levels = std::vector<std::pair<std::string, std::string>>;

// tala's own wording of a five-level rubric, without and with a reference answer.
const Levels& ReferenceFreeRubric() {
  static const Levels kLevels = {
      {"score1_description", "The answer is wrong, off-topic or unusable."},
      {"score2_description", "The answer is mostly wrong, with a few relevant points."},
      {"score3_description", "The answer is partly right but misses or confuses key points."},
      {"score4_description", "The answer is right on the main points with small gaps or slips."},
      {"score5_description", "The answer is right, complete and clear."},
  };
  return kLevels;
}
const Levels& ReferenceRubric() {
  static const Levels kLevels = {
      {"score1_description", "The answer contradicts the reference or ignores it entirely."},
      {"score2_description", "The answer agrees with the reference on little of substance."},
      {"score3_description", "The answer agrees with part of the reference and misses the rest."},
      {"score4_description", "The answer agrees with the reference except for minor details."},
      {"score5_description", "The answer says everything the reference says, accurately."},
  };
  return kLevels;
}

std::optional<int> LevelNumber(const std::string& key) {
  size_t d = 0;
  while (d < key.size() && !std::isdigit(static_cast<unsigned char>(key[d]))) ++d;
  if (d == key.size()) return std::nullopt;
  int n = 0;
  while (d < key.size() && std::isdigit(static_cast<unsigned char>(key[d])) && n < 100000) {
    n = n * 10 + (key[d++] - '0');
  }
  return n;
}

// The question for a rubric: its levels and the scale their numbers give.
JudgeQuestion RubricQuestion(const std::string& key, const Levels& levels) {
  JudgeQuestion q;
  q.kind = JudgeQuestion::Kind::kScore;
  q.key = key;
  q.levels = levels;
  q.definition = "Score the answer by the rubric's levels.";
  std::vector<int> numbers;
  for (const auto& [level, _] : levels) {
    if (auto n = LevelNumber(level)) numbers.push_back(*n);
  }
  if (numbers.size() == levels.size() && !numbers.empty()) {
    q.lo = *std::min_element(numbers.begin(), numbers.end());
    q.hi = *std::max_element(numbers.begin(), numbers.end());
  } else {
    q.lo = 1;
    q.hi = static_cast<double>(std::max<size_t>(levels.size(), 2));
  }
  return q;
}

class RubricMetric : public MetricBase {
 public:
  RubricMetric(const MetricInfo& info, MetricOptions options, Levels levels)
      : MetricBase(info, std::move(options)), levels_(std::move(levels)) {
    set_key(info.name);  // the rubric's text is not part of the name
  }
  TaskSet tasks() const override { return static_cast<TaskSet>(JudgeTask::kAnswerQuestions); }
  std::vector<JudgeQuestion> questions(const Sample& s) const override {
    if (&info() == &InstanceRubricsInfo()) {
      Levels row;
      if (s.rubrics) row.assign(s.rubrics->begin(), s.rubrics->end());
      return {RubricQuestion(info().name, row)};
    }
    const Levels& levels = !levels_.empty() ? levels_
                           : s.reference    ? ReferenceRubric()
                                            : ReferenceFreeRubric();
    return {RubricQuestion(info().name, levels)};
  }
  std::string question_key() const override { return info().name; }
  std::string Unscorable(const Sample& s) const override {
    // Ragas refuses an instance rubric with no levels; a judge would only guess a scale.
    if (&info() == &InstanceRubricsInfo() && s.rubrics && s.rubrics->empty()) {
      return "the row's rubrics field has no levels";
    }
    return {};
  }
  MetricValue Score(const Sample& s, const Verdicts& v) const override {
    const JudgeQuestion q = questions(s).front();
    const JudgedAnswer& a = v.answers.at(q.key);
    std::string why = "level " + Short(a.values[0]) + " of " + Short(q.lo) + ".." + Short(q.hi);
    if (!a.reason.empty()) why += ": " + a.reason;
    return MetricValue::Number(a.values[0], why);
  }

 private:
  Levels levels_;  // rubrics_score's own rubric; empty: tala's default for the row
};

}  // namespace

const MetricInfo& RubricsScoreInfo() {
  static const MetricInfo kInfo{
      .name = "rubrics_score",
      .aliases = {"domain_specific_rubrics"},
      // What the rubric grades: the response. The question, a reference and contexts are
      // shown to the judge when the row has them (Ragas takes them all as optional).
      .required_fields = static_cast<FieldSet>(Field::kResponse),
      .tasks = static_cast<TaskSet>(JudgeTask::kAnswerQuestions),
      .needs_llm = true,
      .summary = "a 1-5 level by a rubric (options scoreN=..., or tala's default rubric)",
      .offline_note = "needs an LLM judge: undefined with the offline judge",
      .by_default = false,
      .version = "2",  // 2: a level off the rubric's scale fails; user_input is optional
  };
  return kInfo;
}

const MetricInfo& InstanceRubricsInfo() {
  static const MetricInfo kInfo{
      .name = "instance_rubrics",
      .required_fields = Field::kResponse | Field::kRubrics,
      .tasks = static_cast<TaskSet>(JudgeTask::kAnswerQuestions),
      .needs_llm = true,
      .summary = "a level by the row's own rubrics field",
      .offline_note = "needs an LLM judge: undefined with the offline judge",
      // 2: a level off the scale fails, an empty rubric is undefined, user_input is optional
      .version = "2",
  };
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeRubricsScore(const MetricOptions& options) {
  Levels levels;
  for (const auto& [k, v] : options) {
    if (k.rfind("score", 0) != 0 || !LevelNumber(k) || k.size() > 8) {
      return InvalidArgument("metric rubrics_score has no option \"" + k +
                             "\"; give levels as score1=..., score2=..., ...");
    }
    levels.emplace_back(k + "_description", v);
  }
  std::sort(levels.begin(), levels.end(), [](const auto& a, const auto& b) {
    return *LevelNumber(a.first) < *LevelNumber(b.first);
  });
  if (levels.size() == 1) {
    return InvalidArgument("metric rubrics_score: a rubric needs at least two levels");
  }
  return std::unique_ptr<Metric>(
      std::make_unique<RubricMetric>(RubricsScoreInfo(), options, std::move(levels)));
}

Result<std::unique_ptr<Metric>> MakeInstanceRubrics(const MetricOptions& options) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(InstanceRubricsInfo().name, options, {}));
  return std::unique_ptr<Metric>(
      std::make_unique<RubricMetric>(InstanceRubricsInfo(), options, Levels{}));
}

}  // namespace tala::metrics
