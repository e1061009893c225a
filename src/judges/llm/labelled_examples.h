#pragma once
// Rows people labelled (a judge profile's examples: tala align --examples), and for each call of a
// row the ones nearest it: an LLM judge sees them beside the row, as data, with the people's
// verdicts, so its own verdicts lean toward this project's standard (issue 55). Nearest by
// meaning when given a sentence encoder (the cosine of the question and answer's vectors: "How
// far apart are the legs?" is near "What is the distance between the legs?"), else by the words
// they share (Jaccard over words of three characters or more, as core's tokenizer reads them);
// a row the encoder fails on falls back to the words. Immutable after construction: thread-safe
// when the encoder function is.

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tala/judge.h"
#include "tala/status.h"

namespace tala::judges::llm {

struct Example {
  std::string metric;            // "faithfulness"
  std::string question, answer;  // the labelled row's texts
  bool right = false;            // the people's verdict: the answer passes on the metric
};

// Unit vectors of texts, one per text (a sentence encoder); must be safe to call from any thread.
using EncodeTexts =
    std::function<Result<std::vector<std::vector<double>>>(std::span<const std::string>)>;

class ExampleBank {
 public:
  // `tasks_of`: each labelled metric's judge tasks; a call carries a metric's examples when it
  // answers one of them. Examples of metrics not in it are never sent. `encode` (may be empty):
  // the encoder nearness reads, named `encoder_name`; the examples are encoded here, and an
  // encoder that fails on them is not used.
  ExampleBank(std::vector<Example> examples, std::map<std::string, TaskSet> tasks_of, int per_call,
              EncodeTexts encode = {}, std::string encoder_name = "");

  // A row's texts as nearness reads them: its words, and its vector when there is an encoder.
  struct Query {
    std::vector<std::string> words;
    std::optional<std::vector<double>> vector;
  };
  Query Read(const std::string& question, const std::string& answer) const;
  // Up to per_call examples for a call answering `tasks` on a row, nearest first (ties in the
  // profile's order); empty when no labelled metric is served.
  std::vector<const Example*> For(TaskSet tasks, const Query& row) const;
  std::vector<const Example*> For(TaskSet tasks, const std::string& question,
                                  const std::string& answer) const {
    return For(tasks, Read(question, answer));
  }
  bool empty() const { return examples_.empty(); }
  // How nearness is read: the encoder's name, or "words".
  std::string nearness() const { return vectors_.empty() ? "words" : encoder_name_; }

 private:
  std::vector<Example> examples_;
  std::vector<std::vector<std::string>> words_;  // each example's words, sorted, unique
  std::vector<std::vector<double>> vectors_;     // each example's vector; empty: by words
  std::map<std::string, TaskSet> tasks_of_;
  int per_call_;
  EncodeTexts encode_;
  std::string encoder_name_;
};

}  // namespace tala::judges::llm
