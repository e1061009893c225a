#pragma once
// A real HTTP judge server on 127.0.0.1 for tests and benchmarks (cpp-httplib). It speaks the
// OpenAI Chat Completions and Embeddings wire formats and the Anthropic Messages format, and
// answers each of tala's judge prompts deterministically from the prompt's content (claims by
// sentence, support by word overlap). Latency and faults are injectable: 429 with Retry-After,
// 500, a stall past the client's timeout, a connection dropped mid-reply, a malformed body, a
// reply cut off at the length limit, a wrong-arity verdict list, prose instead of JSON, 401.
// It counts requests and tokens. Thread-safe: handlers run on the server's thread pool.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tala::testing {

enum class Fault {
  kNone,
  kRateLimited,    // 429, Retry-After: 1 and retry-after-ms
  kServerError,    // 500
  kStall,          // answers only after stall_ms (past the client's timeout)
  kDrop,           // closes the connection halfway through the body
  kMalformedBody,  // 200 with a body that is not JSON
  kCutOff,         // 200, finish_reason "length", the content cut in half
  kWrongArity,     // 200, one verdict too few (or prose for tasks without a list)
  kProse,          // 200, the content is prose, not JSON
  kUnauthorized,   // 401
  kZeroVectors,    // 200, every embedding all zeros (a broken embeddings endpoint)
  kHugeUsage,      // 200 with usage.prompt_tokens 2^40 (a broken usage counter or proxy)
  kMisquote,       // 200, a golden set's quotes reworded (not verbatim); other prompts unchanged
};
const char* FaultName(Fault f);

struct MockJudgeOptions {
  std::string host = "127.0.0.1";  // the address to listen on
  int port = 0;                    // 0: a free port, chosen at Start()
  int latency_ms = 0;              // added to every reply
  int threads = 16;                // concurrent requests served
  int stall_ms = 1500;             // kStall's delay
  int retry_after_ms = 20;         // sent with 429 as retry-after-ms (Retry-After: 1 also sent)
  double fault_rate = 0;           // share of requests faulted (seeded), kinds in turn from below
  uint64_t seed = 1;
  bool record_requests = false;  // keep every chat request's messages (see requests())
  std::string system_fingerprint = "fp_mock";  // in OpenAI replies, beside "model"
  // When set, each request's arrival time (microseconds of the system clock) is appended to
  // this file, a line each: for budget tests that measure the rate the server saw.
  std::string arrival_log;
  // The most answers one request gets when it asks for several (OpenAI's `n`); 1 behaves like a
  // server without `n`.
  int max_choices = 8;
  // Shares of each chat prompt the reply reports as read from the provider's prompt cache
  // (OpenAI: usage.prompt_tokens_details.cached_tokens; Anthropic: cache_read_input_tokens,
  // input_tokens then the rest) and, for Anthropic, as written to it
  // (cache_creation_input_tokens). Rounded down per reply; the sums are in the stats.
  double cached_share = 0;
  double cache_write_share = 0;
  // Instead of fixed shares, a prompt cache that works as the providers' do (measurement of
  // layouts): OpenAI serves the longest start of the prompt (its schema, then the messages in
  // order) that an earlier request had, in 128-token steps, from cache_min_tokens on; Anthropic
  // serves and writes the starts that end at a block marked cache_control, from
  // cache_min_tokens on. Tokens are counted as everywhere in the mock: 4 characters each.
  bool prefix_cache = false;
  int64_t cache_min_tokens = 1024;
  // Pairwise criteria (tala compare --pairwise) always answered A: a judge with position bias.
  bool pairwise_prefer_first = false;
  std::vector<Fault> fault_kinds = {Fault::kRateLimited,   Fault::kServerError, Fault::kDrop,
                                    Fault::kMalformedBody, Fault::kCutOff,      Fault::kWrongArity,
                                    Fault::kProse};
};

struct MockJudgeStats {
  int64_t requests = 0;
  int64_t chat_requests = 0;
  int64_t embedding_requests = 0;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t cached_tokens = 0;       // of prompt_tokens, reported as read from the prompt cache
  int64_t cache_write_tokens = 0;  // of prompt_tokens, reported as written to it (Anthropic)
  std::map<std::string, int64_t> by_task;  // "rate_chunks" -> requests
  std::map<std::string, int64_t> faults;   // fault name -> times injected
};

// A chat request as the mock received it: the system message and the first user message.
struct RecordedRequest {
  std::string system;
  std::string user;
  std::string prompt_cache_key;  // OpenAI's prompt_cache_key, when the request sent one
};

class MockJudgeServer {
 public:
  explicit MockJudgeServer(MockJudgeOptions options = {});
  ~MockJudgeServer();
  // Binds options.port (or a free port) on options.host and serves on a background thread.
  // False when it cannot (the port is taken, the host is not an address of this machine).
  bool Start();
  void Stop();
  int port() const { return port_; }
  std::string base_url() const;  // "http://HOST:PORT/v1"

  // The n-th request (1-based, in arrival order) gets `fault` (overrides the fault rate).
  void ScriptFault(int64_t request, Fault fault);
  // Every request gets `fault` from now on (kNone to stop).
  void SetStandingFault(Fault fault);
  MockJudgeStats stats() const;
  // Every chat request so far, in arrival order (only with options.record_requests).
  std::vector<RecordedRequest> requests() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

// The reply the mock gives to one of tala's prompts (the user message of the request), as the
// model's content text. Exposed for tests of the parsing side.
std::string MockAnswer(const std::string& system, const std::string& user,
                       bool prefer_first = false);

// A row-first request (judges/llm/row_calls.h) read as the one object the separate layout
// sends: `parts` are the request's user texts, the row's data as a JSON object first and the
// task last, ending in a line that is the task's settings as a JSON object. nullopt when the
// parts are not of that shape.
std::optional<std::string> RowFirstRequest(const std::vector<std::string>& parts);

// cpp-httplib (as Debian builds it) listens with a backlog of 5; this raises it for the socket
// listening on `port`, so many connections at once do not wait on SYN retransmits.
void WidenListenBacklog(int port);

}  // namespace tala::testing
