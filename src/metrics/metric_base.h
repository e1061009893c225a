#pragma once
// Helpers shared by the metric files: a Metric holding its MetricInfo, option parsing, and the
// ratio formatting used in reasons. Pure.

#include <memory>
#include <string>

#include "tala/metric.h"
#include "tala/status.h"

namespace tala::metrics {

using MetricFactory = Result<std::unique_ptr<Metric>> (*)(const MetricOptions&);

// A metric whose identity is a fixed MetricInfo plus the options it was built with.
class MetricBase : public Metric {
 public:
  MetricBase(const MetricInfo& info, MetricOptions options);
  const MetricInfo& info() const override { return info_; }
  const std::string& key() const override { return key_; }  // "name(k=v,...)" with options

 protected:
  void set_key(std::string key) { key_ = std::move(key); }
  const MetricOptions& options() const { return options_; }

 private:
  const MetricInfo& info_;
  MetricOptions options_;
  std::string key_;
};

// A metric scored from the judge's answer to its own question (an aspect, a rubric, a goal).
// The question's key is the metric's results key without its tuning options.
class QuestionMetric : public MetricBase {
 public:
  // `key`: the results key, when it is not every option (an aspect's definition is left out).
  QuestionMetric(const MetricInfo& info, MetricOptions options, JudgeQuestion question,
                 std::string key = {});
  TaskSet tasks() const override { return static_cast<TaskSet>(JudgeTask::kAnswerQuestions); }
  std::vector<JudgeQuestion> questions(const Sample&) const override { return {question_}; }
  std::string question_key() const override { return question_.key; }

 protected:
  const JudgeQuestion& question() const { return question_; }
  // REQUIRES: HasAnswer(verdicts, question()) (the row scorer checks it).
  const JudgedAnswer& AnswerIn(const Verdicts& verdicts) const {
    return verdicts.answers.at(question_.key);
  }

 private:
  JudgeQuestion question_;
};

// The option's text, or kInvalidArgument naming the metric when it is absent or blank.
Result<std::string> RequiredOption(const std::string& metric, const MetricOptions& options,
                                   const char* name);
// "name(k=v,...)" over the options named in `identity` only (the results key and question key
// of metrics whose other options are long texts: an aspect's definition).
std::string KeyOf(const std::string& metric, const MetricOptions& options,
                  std::initializer_list<const char*> identity);
// `v` with at most 4 decimals and no trailing zeros: "0.6667", "3".
std::string Short(double v);

// kInvalidArgument naming the metric when `options` holds a key not in `allowed`.
Status CheckOptionNames(const std::string& metric, const MetricOptions& options,
                        std::initializer_list<const char*> allowed);
// The option as a number in [lo, hi], or `fallback` when absent.
Result<double> NumberOption(const std::string& metric, const MetricOptions& options,
                            const char* name, double fallback, double lo, double hi);
// "3 of 4 claims supported"; cheap, since a reason is built for every scored row.
std::string Ratio(size_t part, size_t whole, const char* what);
// `label` followed by `v` with 4 decimals: "cosine 0.9312".
std::string Fixed4(const char* label, double v);

// Mean of precision@k over the ranks holding a relevant item: Σ_k P@k·rel_k / #relevant,
// 0 when nothing is relevant. No epsilon, so a perfect ranking is exactly 1.0.
double AveragePrecision(const std::vector<bool>& relevant);

}  // namespace tala::metrics
