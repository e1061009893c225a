#pragma once
// JudgeRunner: answers rows' judge tasks with an LLM over HTTP, keeping the server as busy as
// allowed and no busier. Rows stream in; each row's model calls (judges/llm/row_calls) go
// through the cache, the rate limiter, the HTTP client and the retry policy; a malformed reply
// gets one repair try quoting the parse error; a row is handed back as soon as its last call
// ends, with a verdict or a reason for every task. One event loop on the calling thread (no
// worker threads): only that thread may use a runner.

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

#include "judges/http/provider.h"
#include "judges/llm/call_source.h"
#include "judges/llm/row_calls.h"
#include "runtime/accounting.h"
#include "runtime/cache.h"
#include "runtime/clock.h"
#include "runtime/retry_policy.h"
#include "tala/embedder.h"
#include "tala/run_summary.h"
#include "tala/sample.h"

namespace tala::runtime {

struct JudgeBackends {
  judges::http::ModelSettings chat;
  // The embeddings model (OpenAI-compatible); nullopt: tala's offline embeddings.
  std::optional<judges::http::ModelSettings> embeddings;
};

struct RuntimeOptions {
  int max_in_flight = 32;                     // HTTP requests at once
  double requests_per_minute = 0;             // chat requests; 0: no limit
  double tokens_per_minute = 0;               // chat prompt + completion tokens; 0: no limit
  std::chrono::milliseconds timeout{120000};  // per request
  RetryOptions retry;
  judges::llm::CallOptions calls;
  bool read_cache = true;   // false: ask the model even when the cache has the reply
  bool write_cache = true;  // store parsed replies
};

// What the runner reports as it goes (rows_total is left for the caller to fill).
using RunnerProgress = Progress;

class JudgeRunner {
 public:
  using NextRow = std::function<std::unique_ptr<Sample>()>;  // nullptr: no more rows
  using PlanRow = std::function<judges::RowPlan(const Sample&)>;
  // Receives each row once its calls are over; a non-OK status stops the run.
  using RowDone = std::function<Status(std::unique_ptr<Sample>, Result<Verdicts>)>;
  using Tick = std::function<void(const RunnerProgress&)>;

  // `cache` may be null (--cache off); it and `clock` must outlive the runner.
  // kNotFound for an unknown provider; kInternal when curl cannot start.
  static Result<std::unique_ptr<JudgeRunner>> Create(JudgeBackends backends, RuntimeOptions options,
                                                     Cache* cache, Clock& clock);
  ~JudgeRunner();

  // Runs until every row is handed back. kCancelled when `stop` is set (rows handed back so
  // far stay handed back; unfinished ones are dropped); the first fatal HTTP error (401, 403,
  // 404: every call would fail alike) stops the run with that error, and so does a judge that
  // cannot be reached at all (kUnavailable: the first requests were refused or the host did
  // not resolve, and none was ever answered).
  Status Run(const NextRow& next, const PlanRow& plan, const RowDone& done,
             const std::atomic<bool>* stop, const Tick& tick);

  // The same loop over the caller's own units of work (a golden set's items): each source is
  // handed back through `done` once its last call is over; Progress counts sources as rows.
  using NextSource = std::function<std::unique_ptr<judges::llm::CallSource>()>;
  using SourceDone = std::function<Status(std::unique_ptr<judges::llm::CallSource>)>;
  Status RunSources(const NextSource& next, const SourceDone& done, const std::atomic<bool>* stop,
                    const Tick& tick);

  const Accounting& accounting() const;
  // The content address of a call's reply: provider, model, prompt version, parameters and
  // the messages (or inputs).
  std::string CacheKey(const judges::llm::ModelCall& call) const;
  // True when the cache holds the reply to `call` (for --dry-run).
  bool Cached(const judges::llm::ModelCall& call);

 private:
  struct Row;
  struct Pending;
  using NextUnit = std::function<std::unique_ptr<Row>()>;  // nullptr: no more
  JudgeRunner(JudgeBackends backends, RuntimeOptions options, Cache* cache, Clock& clock);
  Status Loop(const NextUnit& next, const std::atomic<bool>* stop, const Tick& tick);
  void Admit(const NextUnit& next);
  void Advance(Row* row);
  void Issue(Row* row, judges::llm::ModelCall call);
  bool AnswerFromCache(Pending& p);
  void AnswerOffline(std::unique_ptr<Pending> p);
  std::optional<TimePoint> SendReady();
  void Send(std::unique_ptr<Pending> p);
  void OnResponse(Pending* p, Result<judges::http::HttpResponse> response);
  bool Accept(Pending& p, const std::string& text, std::string* error);
  void StopIfUnreachable();
  void RetryOrFail(std::unique_ptr<Pending> p, const Status& error,
                   std::optional<Duration> retry_after);
  void CallOver(std::unique_ptr<Pending> p);
  CallCounts& CountsFor(const Pending& p);
  void CancelEverything();

  struct Impl;
  std::unique_ptr<Impl> impl_;
  JudgeBackends backends_;
  RuntimeOptions options_;
  Cache* cache_;
  Clock& clock_;
  mutable Accounting accounting_;
  Status fatal_;
  int64_t rows_done_ = 0;
};

}  // namespace tala::runtime
