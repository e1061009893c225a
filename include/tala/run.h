#pragma once
// RunTarget: calls the system under test once per golden row and writes the dataset `tala eval`
// scores: the golden fields carried over, plus the target's `response`, `retrieved_contexts`
// (and `retrieved_context_ids`), `latency_ms`, any token or cost figures it reports, or the
// `target_error` that stopped the row. Shared by `tala run`, `tala ci` and the Python package.
// Call from one thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tala/evaluate.h"
#include "tala/status.h"
#include "tala/target_spec.h"

namespace tala {

struct RunOptions {
  std::string golden;  // JSON Lines: user_input, optional id, reference, metadata ...
  // Instead of golden rows: scenarios (JSON Lines) a simulated user plays against the target,
  // each written as a conversation row (engine/simulate.h).
  std::string simulate;
  // Who plays the simulated user: "offline" (tala's reading, no model) or an LLM judge
  // ("openai:MODEL", "anthropic:MODEL") with `user_llm`'s server, limits, cache and seed.
  std::string user_judge = "offline";
  LlmOptions user_llm;
  std::string out;  // the dataset written ("-" not allowed: rows must survive a crash)
  TargetSpec target;
  int max_in_flight = 8;   // calls at once
  int timeout_ms = 60000;  // per call
  int max_retries = 3;     // per row, on timeouts, 5xx, 429 and crashed processes; never 4xx
  double requests_per_minute = 0;  // 0: no limit
  int max_restarts = 5;            // exec: restarts of a crashed process before the run stops
  bool resume = false;             // keep the answered rows already in `out`, call for the others
  // Check the golden rows or scenarios and the target's requests, and count the calls a run
  // would make (with an LLM user judge, its tokens and cost, estimated); call nothing, write
  // nothing.
  bool dry_run = false;
  std::string cache = "off";  // SQLite file keyed on target + request, or "off"
  const std::atomic<bool>* stop = nullptr;
  std::function<void(const Progress&)> progress;
};

struct RunReport {
  std::string out;
  int64_t rows_read = 0;
  int64_t rows_answered = 0;  // rows with a response
  int64_t rows_failed = 0;    // rows with a target_error
  int64_t rows_resumed = 0;   // answered rows kept from `out`
  int64_t calls = 0, retries = 0, restarts = 0, cache_hits = 0;
  int peak_in_flight = 0;
  double latency_mean_ms = 0, latency_p50_ms = 0, latency_p95_ms = 0, latency_max_ms = 0;
  int64_t prompt_tokens = 0, completion_tokens = 0;
  double cost_usd = 0;
  double seconds = 0;
  // --simulate: how the conversations ended (success, limit, give_up, target_error) and the
  // user's messages sent.
  std::vector<std::pair<std::string, int64_t>> simulation_ends;
  int64_t user_turns = 0;
  // An LLM user's calls (cache hits included) and tokens.
  int64_t user_calls = 0, user_cache_hits = 0, user_prompt_tokens = 0, user_completion_tokens = 0;
  // Why rows failed: each distinct reason (first 5) with the rows it hit.
  std::vector<std::pair<std::string, int64_t>> error_reasons;
  // --dry-run: the target's calls (a simulation's at most: every scenario to its max_turns) and
  // an LLM user judge's calls (at most one after each answer), estimated tokens and cost (when
  // its price is known), with what the estimate assumed.
  bool dry_run = false;
  int64_t planned_target_calls = 0, planned_user_calls = 0;
  int64_t planned_user_prompt_tokens = 0, planned_user_completion_tokens = 0;
  std::optional<double> planned_user_cost_usd;
  std::string planned_note;
};

// kDataError naming file, line and field for a bad golden row (checked before any call);
// kInvalidArgument for a bad target or template; kUnavailable when the target cannot be reached
// at all or an exec process keeps crashing; kCancelled when stopped. Rows already written stay.
Result<RunReport> RunTarget(const RunOptions& options, RunReport* partial = nullptr);

std::string FormatRunReport(const RunReport& report);

}  // namespace tala
