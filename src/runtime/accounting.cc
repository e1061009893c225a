#include "runtime/accounting.h"

#include <optional>
#include <utility>
#include <vector>

namespace tala::runtime {

void CallCounts::Add(const CallCounts& o) {
  calls += o.calls;
  cache_hits += o.cache_hits;
  requests += o.requests;
  retries += o.retries;
  repairs += o.repairs;
  failed += o.failed;
  prompt_tokens += o.prompt_tokens;
  completion_tokens += o.completion_tokens;
  cached_prompt_tokens += o.cached_prompt_tokens;
  cached_completion_tokens += o.cached_completion_tokens;
}

std::optional<Price> KnownPrice(const std::string& model) {
  // List prices (USD per 1M input / output tokens) as published by the providers in 2025;
  // the longest matching prefix wins, so dated snapshots ("gpt-4o-mini-2024-07-18") match.
  static const std::vector<std::pair<std::string, Price>> kPrices = {
      {"gpt-4o-mini", {0.15, 0.60}},
      {"gpt-4o", {2.50, 10.00}},
      {"gpt-4.1-nano", {0.10, 0.40}},
      {"gpt-4.1-mini", {0.40, 1.60}},
      {"gpt-4.1", {2.00, 8.00}},
      {"o4-mini", {1.10, 4.40}},
      {"text-embedding-3-small", {0.02, 0}},
      {"text-embedding-3-large", {0.13, 0}},
      {"claude-3-5-haiku", {0.80, 4.00}},
      {"claude-3-haiku", {0.25, 1.25}},
      {"claude-sonnet-4", {3.00, 15.00}},
      {"claude-3-7-sonnet", {3.00, 15.00}},
      {"claude-opus-4", {15.00, 75.00}},
  };
  const Price* best = nullptr;
  size_t best_len = 0;
  for (const auto& [prefix, price] : kPrices) {
    if (model.rfind(prefix, 0) == 0 && prefix.size() > best_len) {
      best = &price;
      best_len = prefix.size();
    }
  }
  if (!best) return std::nullopt;
  return *best;
}

double Cost(const CallCounts& c, const Price& p) {
  return (static_cast<double>(c.prompt_tokens) * p.input +
          static_cast<double>(c.completion_tokens) * p.output) /
         1e6;
}

void Accounting::AddShared(TaskSet tasks, const std::vector<std::string>& question_keys,
                           const CallCounts& c) {
  if (question_keys.empty()) {
    by_tasks[tasks].Add(c);
    return;
  }
  std::string joined;
  for (const std::string& k : question_keys) joined += (joined.empty() ? "" : "\n") + k;
  by_questions[joined].Add(c);
}

}  // namespace tala::runtime
