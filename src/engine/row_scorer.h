#pragma once
// RowScorer: scores one sample with a fixed list of metrics through one judge. It plans the
// row's tasks once, asks the judge once, and turns missing fields or verdicts into undefined
// values with reasons. Not thread-safe (the judge may not be).

#include <memory>
#include <vector>

#include "io/writers/results_jsonl_writer.h"
#include "tala/judge.h"
#include "tala/metric.h"

namespace tala {

class RowScorer {
 public:
  // `judge` may be null when verdicts come from elsewhere (the LLM runtime): use ScoreWith.
  RowScorer(const std::vector<std::unique_ptr<Metric>>& metrics, Judge* judge,
            std::string judge_name)
      : metrics_(metrics), judge_(judge), judge_name_(std::move(judge_name)) {
    for (const auto& m : metrics_) judged_ = judged_ || m->tasks() != 0;
  }
  // The row's scores, one per metric in order; status is the judge's failure, if any. The
  // result carries no verdicts (they would not outlive the call): use ScoreWith for the
  // drill-down. REQUIRES: a judge was given.
  io::RowResult Score(const Sample& sample);
  // The judge's verdicts on the row: every task and question its metrics ask, in one Answer()
  // (none when they ask nothing). REQUIRES: a judge was given.
  Result<Verdicts> Ask(const Sample& sample);
  // The same, from verdicts already answered (or the row's judge failure).
  io::RowResult ScoreWith(const Sample& sample, const Result<Verdicts>& verdicts);

 private:
  const std::vector<std::unique_ptr<Metric>>& metrics_;
  Judge* judge_;
  std::string judge_name_;
  bool judged_ = false;  // some metric asks the judge: rows carry their inputs and verdicts
};

}  // namespace tala
