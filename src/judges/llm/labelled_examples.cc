#include "judges/llm/labelled_examples.h"

#include <algorithm>

#include "core/text/tokenize.h"
#include "core/text/word_sets.h"

namespace tala::judges::llm {

namespace {

// The text's words (core's tokens: folded, accents stripped) of three characters or more,
// sorted and unique.
std::vector<std::string> WordsOf(const std::string& text) {
  std::vector<std::string> out;
  for (text::Token& t : text::Tokenize(text)) {
    if (t.text.size() >= 3) out.push_back(std::move(t.text));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  double dot = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) dot += a[i] * b[i];
  return dot;
}

// What nearness reads of a row: its question and answer, on two lines.
std::string TextOf(const std::string& question, const std::string& answer) {
  return question + "\n" + answer;
}

}  // namespace

ExampleBank::ExampleBank(std::vector<Example> examples, std::map<std::string, TaskSet> tasks_of,
                         int per_call, EncodeTexts encode, std::string encoder_name)
    : examples_(std::move(examples)),
      tasks_of_(std::move(tasks_of)),
      per_call_(per_call),
      encoder_name_(std::move(encoder_name)) {
  std::vector<std::string> texts;
  for (const Example& e : examples_) {
    words_.push_back(WordsOf(e.question + " " + e.answer));
    texts.push_back(TextOf(e.question, e.answer));
  }
  if (encode && !texts.empty()) {
    auto vectors = encode(texts);
    if (vectors && vectors->size() == texts.size()) {
      vectors_ = std::move(*vectors);
      encode_ = std::move(encode);
    }
  }
}

ExampleBank::Query ExampleBank::Read(const std::string& question, const std::string& answer) const {
  Query q;
  q.words = WordsOf(question + " " + answer);
  if (encode_) {
    const std::string text = TextOf(question, answer);
    auto vectors = encode_(std::span<const std::string>(&text, 1));
    if (vectors && vectors->size() == 1) q.vector = std::move(vectors->front());
  }
  return q;
}

std::vector<const Example*> ExampleBank::For(TaskSet tasks, const Query& row) const {
  std::vector<std::pair<double, size_t>> ranked;
  const bool by_meaning = row.vector.has_value() && !vectors_.empty();
  for (size_t i = 0; i < examples_.size(); ++i) {
    auto served = tasks_of_.find(examples_[i].metric);
    if (served == tasks_of_.end() || (served->second & tasks) == 0) continue;
    // A row of no words is near none (two empty sets are alike to Jaccard).
    const double near = by_meaning          ? Dot(*row.vector, vectors_[i])
                        : row.words.empty() ? 0.0
                                            : text::Jaccard(row.words, words_[i]);
    ranked.emplace_back(near, i);
  }
  // Nearest first; the profile's order among equals, so the pick never depends on the sort.
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<const Example*> out;
  for (const auto& [similarity, i] : ranked) {
    if (static_cast<int>(out.size()) >= per_call_) break;
    out.push_back(&examples_[i]);
  }
  return out;
}

}  // namespace tala::judges::llm
