#pragma once
// Rows people labelled (a judge profile's examples: tala align --examples), and for each call of a
// row the ones nearest it: an LLM judge sees them beside the row, as data, with the people's
// verdicts, so its own verdicts lean toward this project's standard (issue 55). Nearest by the
// words the question and answer share (Jaccard over their words of three characters or more, as
// core's tokenizer reads them), so the pick is the same on every machine and needs no model.
// Immutable after construction: thread-safe.

#include <map>
#include <string>
#include <vector>

#include "tala/judge.h"

namespace tala::judges::llm {

struct Example {
  std::string metric;            // "faithfulness"
  std::string question, answer;  // the labelled row's texts
  bool right = false;            // the people's verdict: the answer passes on the metric
};

class ExampleBank {
 public:
  // `tasks_of`: each labelled metric's judge tasks; a call carries a metric's examples when it
  // answers one of them. Examples of metrics not in it are never sent.
  ExampleBank(std::vector<Example> examples, std::map<std::string, TaskSet> tasks_of, int per_call);

  // Up to per_call examples for a call answering `tasks` on a row with these texts, nearest
  // first (ties in the profile's order); empty when no labelled metric is served.
  std::vector<const Example*> For(TaskSet tasks, const std::string& question,
                                  const std::string& answer) const;
  bool empty() const { return examples_.empty(); }

 private:
  std::vector<Example> examples_;
  std::vector<std::vector<std::string>> words_;  // each example's words, sorted, unique
  std::map<std::string, TaskSet> tasks_of_;
  int per_call_;
};

}  // namespace tala::judges::llm
