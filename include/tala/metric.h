#pragma once
// Metric: pure arithmetic over one sample and its validated verdicts. Score() is total: the
// evaluator checks fields and verdicts before calling it. Metrics are immutable: thread-safe.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tala/judge.h"
#include "tala/sample.h"
#include "tala/verdicts.h"

namespace tala {

enum class Direction { kHigherIsBetter, kLowerIsBetter };

// Where a metric scores a conversation (a row whose user_input is a list of messages whose ai
// messages carry their own passages or reference): not at all (a row metric scores the
// conversation's last answer), on each of its turns (the conversation's value is the mean over
// the turns), or once on the whole conversation (on its last turn).
enum class ConversationScope { kRow, kEachTurn, kWhole };

struct MetricInfo {
  std::string name;                  // wire name, as in Ragas
  std::vector<std::string> aliases;  // other names accepted in --metrics
  FieldSet required_fields = 0;
  TaskSet tasks = 0;       // judge tasks it needs (0: no judge)
  bool needs_llm = false;  // an LLM judge (or the offline stand-in) answers its tasks
  bool needs_embeddings = false;
  Direction direction = Direction::kHigherIsBetter;
  std::string summary;       // one line for `tala metrics`
  std::string offline_note;  // how the offline judge answers it, when that differs
  // How far to trust the offline judge's answer: what bench/offline_trust.sh measured on the
  // held-out half of pairs made mechanically from real labelled data, and what it misses. Empty
  // for metrics the offline judge does not answer.
  std::string offline_measured;
  std::string offline_misses;
  // Scored when --metrics is not given and the data has its fields. False for metrics whose
  // fields are too common to say the row is meant for them (data_compare reads any two texts).
  bool by_default = true;
  std::string family;  // the group `tala metrics` lists it under (set by the registry)
  ConversationScope conversation_scope = ConversationScope::kRow;
  // The definition's version, recorded in every run manifest: bump it when the arithmetic
  // changes, so `tala compare` refuses to set old and new numbers side by side.
  std::string version = "1";
};

// A number, or undefined with the reason. Never NaN.
struct MetricValue {
  std::optional<double> value;
  std::string reason;  // why undefined, or how it was judged ("4 of 5 claims supported")

  static MetricValue Number(double v, std::string why = {}) { return {v, std::move(why)}; }
  static MetricValue Undefined(std::string why) { return {std::nullopt, std::move(why)}; }
};

// A judged metric defined without code: a [metrics.NAME] table in tala.toml, or a dict in
// Python. The judge grades each row by `prompt`, whose {slots} name the row's fields
// ({user_input}, {response}, {reference}, {retrieved_contexts}, {reference_contexts}); the
// row's texts travel as data beside it, never pasted into it. See docs/metrics.md.
struct UserMetricDef {
  enum class Output {
    kDiscrete,  // one of `values`; the value is its position in the list (0-based, worst first)
    kNumeric,   // a number in [min, max]
    kRanking,   // the retrieved contexts ranked by the prompt; the value is the Spearman
                // correlation of that ranking with the retriever's order, in [-1, 1]
  };
  std::string name;
  std::string prompt;
  Output output = Output::kNumeric;
  std::vector<std::string> values;
  double min = 0, max = 1;
  bool integer = false;  // numeric: whole numbers only
  Direction direction = Direction::kHigherIsBetter;
  std::string where;  // where it was defined ("tala.toml:12"), for errors
};

// Options given as name:key=value,key=value in --metrics.
using MetricOptions = std::map<std::string, std::string>;

// Every metric tala implements, in registry order (what `tala metrics` lists).
std::vector<MetricInfo> AllMetricInfos();

class Metric {
 public:
  virtual ~Metric() = default;
  virtual const MetricInfo& info() const = 0;
  // The results key: the wire name, plus options when any were given ("rouge(type=rouge2)").
  virtual const std::string& key() const { return info().name; }
  // The judge tasks this instance needs; some options change them (factual_correctness in
  // precision mode needs no reference claims).
  virtual TaskSet tasks() const { return info().tasks; }
  // The metric's own questions to the judge about `sample` (an aspect, a rubric...); with them,
  // tasks() holds JudgeTask::kAnswerQuestions. Score() finds each answer in verdicts.answers.
  virtual std::vector<JudgeQuestion> questions(const Sample& /*sample*/) const { return {}; }
  // The key its questions' answers go under (the same for every row); empty without questions.
  virtual std::string question_key() const { return {}; }
  // Why `sample` cannot be scored although it has the required fields (an empty rubric, a blank
  // SQL query), or empty when it can. The judge is then not asked, and the score is undefined
  // with this reason.
  virtual std::string Unscorable(const Sample& /*sample*/) const { return {}; }
  // REQUIRES: the sample has info().required_fields, Unscorable(sample) is empty, and the
  // verdicts answer info().tasks.
  virtual MetricValue Score(const Sample& sample, const Verdicts& verdicts) const = 0;
};

}  // namespace tala
