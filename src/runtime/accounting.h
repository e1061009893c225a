#pragma once
// What a run cost: model calls, cache hits, retries, repairs and tokens, in total, per prompt
// and per set of judge tasks (from which the evaluation splits shared calls between metrics).
// Plain values; only the runtime's thread writes them.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tala/judge.h"

namespace tala::runtime {

struct CallCounts {
  int64_t calls = 0;       // logical calls the model answered (usable or not; not counting retries)
  int64_t cache_hits = 0;  // logical calls answered by the cache
  int64_t requests = 0;    // HTTP requests sent, retries and repairs included
  int64_t retries = 0;
  int64_t repairs = 0;  // second tries that quoted a parse error
  int64_t failed = 0;   // calls given up on (the row's verdict is null with the reason)
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t cached_prompt_tokens = 0;  // tokens tala's cache hits saved (never sent)
  int64_t cached_completion_tokens = 0;
  // Of prompt_tokens, those the provider's prompt cache served (billed at its cached-input
  // price) and those written to it (Anthropic bills a write above the input price).
  int64_t provider_cache_read_tokens = 0;
  int64_t provider_cache_write_tokens = 0;
  void Add(const CallCounts& other);
};

struct Accounting {
  CallCounts total;
  double request_seconds = 0;  // summed wall time of the HTTP requests (latency x requests)
  std::map<std::string, CallCounts> by_prompt;  // "rate_chunks", "embeddings", ...
  // --dry-run: per chat prompt, the text every estimated call of it starts with (its messages
  // joined in order): what a provider's prompt cache could serve them from.
  std::map<std::string, std::string> shared_start;
  std::map<std::string, std::string> shared_schema;  // per prompt: the first call's reply schema
  // --dry-run: the chat calls' input tokens each layout would bill ("separate", "row-first",
  // "combined"), in uncached-token equivalents with the provider's prompt cache
  // (judges/llm/row_calls.h).
  std::map<std::string, double> layout_billed;
  // --dry-run: rows whose calls could share their row's data as a start (--layout row-first),
  // and of them those whose start reaches the provider's minimum for cached input.
  int64_t row_prefix_rows = 0, row_prefix_cacheable = 0;
  std::map<TaskSet, CallCounts> by_tasks;
  // Calls for the metrics' own questions, by the questions' keys joined with '\n'.
  std::map<std::string, CallCounts> by_questions;
  // Counts `c` under the call's tasks, or its questions when it answers some.
  void AddShared(TaskSet tasks, const std::vector<std::string>& question_keys, const CallCounts& c);
  // What the server reported answering: model versions and system fingerprints, each once.
  std::set<std::string> models_reported, system_fingerprints;
  // Replies whose reported token usage was beyond belief (negative, or far over the request's
  // size) and was clamped, so that cost, budgets and --tpm cannot explode on one broken counter.
  int64_t usage_clamped = 0;
};

// Prices in US dollars per million tokens: input the provider's prompt cache did not serve,
// input it served (cached_input; unknown: billed as input) and input written to it
// (cache_write; unknown: as input), and output.
struct Price {
  double input = 0;
  double output = 0;
  std::optional<double> cached_input;
  std::optional<double> cache_write;
};
// The built-in price of a model ("gpt-4o-mini"), when tala knows one; prices change, so the
// user can override them (--price-input/--price-output or [price] in tala.toml).
std::optional<Price> KnownPrice(const std::string& model);
double Cost(const CallCounts& counts, const Price& price);

}  // namespace tala::runtime
