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
  provider_cache_read_tokens += o.provider_cache_read_tokens;
  provider_cache_write_tokens += o.provider_cache_write_tokens;
}

std::optional<Price> KnownPrice(const std::string& model) {
  // List prices (USD per 1M input / output / cached input / cache-write tokens) as published
  // by the providers in 2025; the longest matching prefix wins, so dated snapshots
  // ("gpt-4o-mini-2024-07-18") match. OpenAI bills cached input at a discount and no write;
  // Anthropic bills a cache read at a tenth of the input price and a (5-minute) write at 1.25x.
  static const std::vector<std::pair<std::string, Price>> kPrices = {
      {"gpt-4o-mini", {0.15, 0.60, 0.075, 0.15}},
      {"gpt-4o", {2.50, 10.00, 1.25, 2.50}},
      {"gpt-4.1-nano", {0.10, 0.40, 0.025, 0.10}},
      {"gpt-4.1-mini", {0.40, 1.60, 0.10, 0.40}},
      {"gpt-4.1", {2.00, 8.00, 0.50, 2.00}},
      {"o4-mini", {1.10, 4.40, 0.275, 1.10}},
      {"text-embedding-3-small", {0.02, 0, std::nullopt, std::nullopt}},
      {"text-embedding-3-large", {0.13, 0, std::nullopt, std::nullopt}},
      {"claude-3-5-haiku", {0.80, 4.00, 0.08, 1.00}},
      {"claude-3-haiku", {0.25, 1.25, 0.03, 0.30}},
      {"claude-sonnet-4", {3.00, 15.00, 0.30, 3.75}},
      {"claude-3-7-sonnet", {3.00, 15.00, 0.30, 3.75}},
      {"claude-opus-4", {15.00, 75.00, 1.50, 18.75}},
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
  const int64_t uncached =
      c.prompt_tokens - c.provider_cache_read_tokens - c.provider_cache_write_tokens;
  return (static_cast<double>(uncached) * p.input +
          static_cast<double>(c.provider_cache_read_tokens) * p.cached_input.value_or(p.input) +
          static_cast<double>(c.provider_cache_write_tokens) * p.cache_write.value_or(p.input) +
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
