#include "metrics/user_metric.h"

#include <algorithm>
#include <cmath>

#include "core/hash.h"
#include "metrics/registry.h"

namespace tala::metrics {

namespace {

struct Slot {
  const char* name;
  Field field;
  const char* shown;  // how the criteria prompt names that part of the material
};
constexpr Slot kSlots[] = {
    {"user_input", Field::kUserInput, "the question"},
    {"response", Field::kResponse, "the answer"},
    {"reference", Field::kReference, "the reference"},
    {"retrieved_contexts", Field::kRetrievedContexts, "the contexts"},
    {"reference_contexts", Field::kReferenceContexts, "the reference_contexts"},
};

struct Template {
  std::string definition;  // the prompt with each slot named as the material calls it
  FieldSet fields = 0;
};

Result<Template> ReadTemplate(const UserMetricDef& def) {
  auto fail = [&](const std::string& what) {
    return InvalidArgument((def.where.empty() ? "" : def.where + ": ") + "metric " + def.name +
                           ": prompt " + what);
  };
  Template t;
  const std::string& p = def.prompt;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p.compare(i, 2, "{{") == 0 || p.compare(i, 2, "}}") == 0) {
      t.definition += p[i++];
      continue;
    }
    if (p[i] == '}') return fail("has a stray \"}\" (write \"}}\" for a brace)");
    if (p[i] != '{') {
      t.definition += p[i];
      continue;
    }
    size_t close = p.find('}', i);
    if (close == std::string::npos) return fail("has a \"{\" that is never closed");
    std::string slot = p.substr(i + 1, close - i - 1);
    const Slot* found = nullptr;
    for (const Slot& s : kSlots) found = slot == s.name ? &s : found;
    if (found == nullptr) {
      std::string known;
      for (const Slot& s : kSlots)
        known += std::string(known.empty() ? "" : ", ") + "{" + s.name + "}";
      return fail("names an unknown slot {" + slot + "}; slots: " + known);
    }
    t.definition += found->shown;
    t.fields |= static_cast<FieldSet>(found->field);
    i = close;
  }
  if (t.definition.find_first_not_of(" \t\n") == std::string::npos) return fail("is empty");
  return t;
}

// Spearman's rank correlation of the judge's ranking (context indices, best first) with the
// retriever's order; 1 when they agree.
double Spearman(const std::vector<double>& ranking) {
  const double n = static_cast<double>(ranking.size());
  if (ranking.size() < 2) return 1.0;
  double d2 = 0;
  for (size_t judge_rank = 0; judge_rank < ranking.size(); ++judge_rank) {
    double d = static_cast<double>(judge_rank) - ranking[judge_rank];
    d2 += d * d;
  }
  return 1 - 6 * d2 / (n * (n * n - 1));
}

struct InfoHolder {
  MetricInfo info;
};

class UserMetric : private InfoHolder, public QuestionMetric {
 public:
  UserMetric(MetricInfo info, JudgeQuestion q, UserMetricDef def)
      : InfoHolder{std::move(info)},
        QuestionMetric(InfoHolder::info, {}, std::move(q), def.name),
        def_(std::move(def)) {}
  MetricValue Score(const Sample&, const Verdicts& v) const override {
    const JudgedAnswer& a = AnswerIn(v);
    std::string why = a.reason;
    switch (def_.output) {
      case UserMetricDef::Output::kDiscrete: {
        auto it = std::find(def_.values.begin(), def_.values.end(), a.label);
        if (it == def_.values.end()) {
          return MetricValue::Undefined("the judge chose \"" + a.label +
                                        "\", which is not one of the values");
        }
        return MetricValue::Number(static_cast<double>(it - def_.values.begin()),
                                   a.label + (why.empty() ? "" : ": " + why));
      }
      case UserMetricDef::Output::kNumeric:
        return MetricValue::Number(a.values[0], why);
      case UserMetricDef::Output::kRanking:
        if (a.values.empty()) return MetricValue::Undefined("no retrieved contexts to rank");
        return MetricValue::Number(Spearman(a.values),
                                   "Spearman correlation with the retrieval order");
    }
    return MetricValue::Undefined("unknown output");
  }

 private:
  UserMetricDef def_;
};

}  // namespace

Result<std::unique_ptr<Metric>> MakeUserMetric(const UserMetricDef& def) {
  std::string at = def.where.empty() ? "" : def.where + ": ";
  if (def.name.empty() || def.name.find_first_of("(),:=@ ") != std::string::npos) {
    return InvalidArgument(at + "a metric name is a word without ( ) , : = @ or spaces: \"" +
                           def.name + "\"");
  }
  if (FindMetric(def.name) != nullptr) {
    return InvalidArgument(at + "metric " + def.name +
                           " is built in; give your metric another name");
  }
  TALA_ASSIGN_OR_RETURN(Template t, ReadTemplate(def));
  JudgeQuestion q;
  q.key = def.name;
  q.definition = t.definition;
  switch (def.output) {
    case UserMetricDef::Output::kDiscrete:
      if (def.values.size() < 2) {
        return InvalidArgument(at + "metric " + def.name +
                               ": a discrete metric needs at least "
                               "two values");
      }
      q.kind = JudgeQuestion::Kind::kChoice;
      q.choices = def.values;
      break;
    case UserMetricDef::Output::kNumeric:
      if (!(def.min < def.max) || !std::isfinite(def.min) || !std::isfinite(def.max)) {
        return InvalidArgument(at + "metric " + def.name + ": a numeric metric needs min < max");
      }
      q.kind = JudgeQuestion::Kind::kScore;
      q.lo = def.min;
      q.hi = def.max;
      q.integer = def.integer;
      break;
    case UserMetricDef::Output::kRanking:
      q.kind = JudgeQuestion::Kind::kRanking;
      t.fields |= static_cast<FieldSet>(Field::kRetrievedContexts);
      break;
  }
  // The definition's version: a digest of everything that shapes the number, so `tala compare`
  // refuses to set runs of an edited prompt side by side.
  std::string shape = def.prompt + '\x1f' + std::to_string(static_cast<int>(def.output)) + '\x1f' +
                      std::to_string(def.min) + '\x1f' + std::to_string(def.max) + '\x1f' +
                      (def.integer ? "1" : "0");
  for (const std::string& v : def.values) shape += '\x1f' + v;
  MetricInfo info{
      .name = def.name,
      .required_fields = t.fields,
      .tasks = static_cast<TaskSet>(JudgeTask::kAnswerQuestions),
      .needs_llm = true,
      .direction = def.direction,
      .summary = "your metric: " + def.prompt.substr(0, 60),
      .offline_note = "needs an LLM judge: undefined with the offline judge",
      .family = "your own metrics (judged)",
      .version = "user-" + Sha256Hex(shape).substr(0, 12) +
                 (def.direction == Direction::kLowerIsBetter ? "-lower" : ""),
  };
  return std::unique_ptr<Metric>(std::make_unique<UserMetric>(std::move(info), std::move(q), def));
}

}  // namespace tala::metrics
