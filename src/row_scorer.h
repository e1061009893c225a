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
  RowScorer(const std::vector<std::unique_ptr<Metric>>& metrics, Judge& judge)
      : metrics_(metrics), judge_(judge) {}
  // The row's scores, one per metric in order; status is the judge's failure, if any.
  io::RowResult Score(const Sample& sample);

 private:
  const std::vector<std::unique_ptr<Metric>>& metrics_;
  Judge& judge_;
};

}  // namespace tala
