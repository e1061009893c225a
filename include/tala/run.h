#pragma once
// RunTarget: calls the system under test once per golden row and writes the dataset `tala eval`
// scores: the golden fields carried over, plus the target's `response`, `retrieved_contexts`
// (and `retrieved_context_ids`), `latency_ms`, any token or cost figures it reports, or the
// `target_error` that stopped the row. Shared by `tala run`, `tala ci` and the Python package.
// Call from one thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tala/evaluate.h"
#include "tala/status.h"

namespace tala {

// How to call the target and read its replies. Paths are JSON pointers ("/data/answer") or
// dotted paths ("data.answer", "choices.0.text"); empty: the defaults below.
struct TargetSpec {
  // "http://HOST:PORT/PATH" or "https://...", "exec:COMMAND ARGS" (a long-lived process speaking
  // JSON Lines, several requests in flight, replies matched by "id") or "exec-once:COMMAND" (one
  // process per row: the request on stdin, the reply on stdout).
  std::string target;
  std::string method = "POST";       // HTTP: POST or PUT
  std::vector<std::string> headers;  // "Name: value", ${ENV} expanded
  // The request: a JSON template whose strings may hold {{user_input}}, {{id}}, {{reference}}
  // or {{metadata.NAME}}; a string that is just one placeholder takes the value's JSON type.
  // Empty: HTTP {"question": "{{user_input}}"}; exec: the golden row with its id.
  std::string body;
  std::string response;     // default: answer, else response
  std::string contexts;     // default: contexts, else retrieved_contexts (strings or objects)
  std::string context_ids;  // default: the contexts' id field, else context_ids
  std::string context_text = "text";  // the text field of object contexts ("content" also read)
  std::string context_id = "id";      // the id field of object contexts
  // Optional figures the target reports (default: usage.prompt_tokens, usage.completion_tokens,
  // cost_usd when present).
  std::string prompt_tokens, completion_tokens, cost;
  // A reply (an HTTP body, an exec line or an exec-once output) over this fails its row with a
  // reason, never the process (a target that floods its output cannot exhaust memory).
  size_t max_reply_bytes = size_t{64} << 20;
};

struct RunOptions {
  std::string golden;  // JSON Lines: user_input, optional id, reference, metadata ...
  std::string out;     // the dataset written ("-" not allowed: rows must survive a crash)
  TargetSpec target;
  int max_in_flight = 8;   // calls at once
  int timeout_ms = 60000;  // per call
  int max_retries = 3;     // per row, on timeouts, 5xx, 429 and crashed processes; never 4xx
  double requests_per_minute = 0;  // 0: no limit
  int max_restarts = 5;            // exec: restarts of a crashed process before the run stops
  bool resume = false;             // keep the answered rows already in `out`, call for the others
  std::string cache = "off";       // SQLite file keyed on target + request, or "off"
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
  // Why rows failed: each distinct reason (first 5) with the rows it hit.
  std::vector<std::pair<std::string, int64_t>> error_reasons;
};

// kDataError naming file, line and field for a bad golden row (checked before any call);
// kInvalidArgument for a bad target or template; kUnavailable when the target cannot be reached
// at all or an exec process keeps crashing; kCancelled when stopped. Rows already written stay.
Result<RunReport> RunTarget(const RunOptions& options, RunReport* partial = nullptr);

std::string FormatRunReport(const RunReport& report);

}  // namespace tala
