#pragma once
// LlmSetup: turns a judge spec ("openai:gpt-4o-mini", "anthropic:claude-3-5-haiku-latest") and
// LlmOptions (flags, tala.toml, environment) into the runtime's backends, options, cache and
// prices; converts the runtime's accounting into the run summary's; and estimates a run for
// --dry-run. Used only by Evaluate.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/judge_runner.h"
#include "tala/evaluate.h"
#include "tala/metric.h"

namespace tala {

// True for "openai:MODEL" and "anthropic:MODEL".
bool IsLlmJudge(const std::string& spec);

struct LlmSetup {
  runtime::JudgeBackends backends;
  runtime::RuntimeOptions runtime;
  std::unique_ptr<runtime::Cache> cache;  // null: --cache off
  std::optional<runtime::Price> price;    // the judge model's, when known or given
  std::optional<runtime::Price> embeddings_price;
  std::string judge_name;       // "openai:gpt-4o-mini"
  std::string embeddings_name;  // "openai:text-embedding-3-small" or "offline"
};

// kInvalidArgument for a malformed spec or option, or a hosted API without its key;
// kIoError when the cache cannot be opened. Warnings (a rebuilt cache) go to `warnings`.
Result<LlmSetup> SetUpLlm(const std::string& spec, const LlmOptions& options,
                          std::vector<std::string>* warnings);

// The runtime's counts as the summary shows them, shared calls split between metrics.
RunAccounting ToRunAccounting(const runtime::Accounting& accounting, const LlmSetup& setup,
                              const std::vector<std::unique_ptr<Metric>>& metrics);

// --dry-run: a chat call's prompt tokens at four characters a token, its schema included when
// structured output sends it.
int64_t EstimatePromptTokens(const judges::llm::ModelCall& call, const LlmSetup& setup);
// --dry-run: adds one call to `estimate`: a cache hit when `may_be_cached` and the cache holds its
// reply, else a call of `prompt` and `completion` tokens. An embeddings call answered offline
// adds nothing.
void AddEstimatedCall(const judges::llm::ModelCall& call, int64_t prompt, int64_t completion,
                      bool may_be_cached, runtime::JudgeRunner& runner, const LlmSetup& setup,
                      runtime::Accounting& estimate);

// --dry-run: what a provider's prompt cache could do for the estimated calls (the start each
// prompt's calls share, against the provider's rules), for the estimate's notes; nullopt when
// no chat call was estimated.
// --dry-run: what the chat calls would bill under each layout (--layout), when they differ.
std::optional<std::string> LayoutNote(const runtime::Accounting& estimate, const LlmSetup& setup);
std::optional<std::string> ProviderCacheNote(const runtime::Accounting& estimate,
                                             const LlmSetup& setup);

// --dry-run: adds one row's planned calls to `estimate` (calls, cache hits, tokens at four
// characters a token, completion tokens from the shape each reply takes).
void EstimateRow(const Sample& sample, const judges::RowPlan& plan, runtime::JudgeRunner& runner,
                 const LlmSetup& setup, runtime::Accounting& estimate);

}  // namespace tala
