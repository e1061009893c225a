#include "judges/llm/labelled_examples.h"

#include <algorithm>

#include "core/text/tokenize.h"

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

double Jaccard(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.empty() && b.empty()) return 0;
  size_t shared = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i] == b[j]) {
      ++shared, ++i, ++j;
    } else if (a[i] < b[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return static_cast<double>(shared) / static_cast<double>(a.size() + b.size() - shared);
}

}  // namespace

ExampleBank::ExampleBank(std::vector<Example> examples, std::map<std::string, TaskSet> tasks_of,
                         int per_call)
    : examples_(std::move(examples)), tasks_of_(std::move(tasks_of)), per_call_(per_call) {
  for (const Example& e : examples_) words_.push_back(WordsOf(e.question + " " + e.answer));
}

std::vector<const Example*> ExampleBank::For(TaskSet tasks, const std::string& question,
                                             const std::string& answer) const {
  std::vector<std::pair<double, size_t>> ranked;
  std::vector<std::string> row;
  for (size_t i = 0; i < examples_.size(); ++i) {
    auto served = tasks_of_.find(examples_[i].metric);
    if (served == tasks_of_.end() || (served->second & tasks) == 0) continue;
    if (row.empty()) row = WordsOf(question + " " + answer);
    ranked.emplace_back(Jaccard(row, words_[i]), i);
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
