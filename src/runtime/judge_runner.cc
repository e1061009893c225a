#include "runtime/judge_runner.h"

#include <algorithm>
#include <ctime>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/hash.h"
#include "judges/llm/question_replies.h"
#include "judges/offline/hashed_embedder.h"
#include "runtime/http_client.h"
#include "runtime/rate_limiter.h"

namespace tala::runtime {

using judges::http::HttpResponse;
using judges::llm::CallKind;
using judges::llm::ModelCall;

// A unit of work in flight: a row (its sample, and RowCalls over it) or a caller's own source.
struct JudgeRunner::Row {
  std::unique_ptr<Sample> sample;  // null for a caller's own source
  std::unique_ptr<judges::llm::CallSource> calls;
};

struct JudgeRunner::Pending {
  Row* row = nullptr;
  ModelCall call;
  std::vector<judges::llm::ChatMessage> messages;  // the call's, plus a repair exchange
  std::string key;
  int retries = 0;
  bool repaired = false;
  double token_estimate = 0;
};

struct JudgeRunner::Impl {
  std::unique_ptr<judges::http::ChatProvider> provider;
  std::unique_ptr<HttpClient> http;
  RateLimiter limiter;
  int64_t usable_replies = 0, unusable_replies = 0;  // the contract circuit breaker
  RetryPolicy retry;
  judges::offline::HashedEmbedder offline_embedder;
  std::unordered_map<Row*, std::unique_ptr<Row>> rows;
  std::deque<std::unique_ptr<Pending>> ready;
  std::multimap<TimePoint, std::unique_ptr<Pending>> waiting;  // retries due at a time
  std::unordered_map<Pending*, std::unique_ptr<Pending>> in_flight;
  const RowDone* done = nullptr;            // Run
  const SourceDone* source_done = nullptr;  // RunSources
  bool exhausted = false;
  Impl(const RuntimeOptions& o, TimePoint now)
      : limiter(o.requests_per_minute, o.tokens_per_minute, now), retry(o.retry) {}
};

namespace {

// A rough count (4 characters a token) for rate limiting before the server reports usage.
double EstimateTokens(const std::vector<judges::llm::ChatMessage>& messages, int max_tokens) {
  size_t chars = 0;
  for (const auto& m : messages) chars += m.content.size();
  return static_cast<double>(chars) / 4.0 + std::min(max_tokens, 400);
}

int64_t UnixNow() { return static_cast<int64_t>(std::time(nullptr)); }

std::string RepairRequest(const std::string& error, bool cut_off) {
  return std::string(cut_off ? "Your reply was cut off at the length limit. " : "") +
         "Your reply could not be used: " + error +
         ". Reply again with the complete JSON object only, in the shape asked for" +
         (cut_off ? ", keeping every \"reason\" empty." : ".");
}

}  // namespace

JudgeRunner::JudgeRunner(JudgeBackends backends, RuntimeOptions options, Cache* cache, Clock& clock)
    : impl_(std::make_unique<Impl>(options, clock.Now())),
      backends_(std::move(backends)),
      options_(options),
      cache_(cache),
      clock_(clock) {}

JudgeRunner::~JudgeRunner() = default;

const Accounting& JudgeRunner::accounting() const {
  accounting_.request_seconds = impl_->http->request_seconds();
  return accounting_;
}

Result<std::unique_ptr<JudgeRunner>> JudgeRunner::Create(JudgeBackends backends,
                                                         RuntimeOptions options, Cache* cache,
                                                         Clock& clock) {
  options.max_in_flight = std::max(1, options.max_in_flight);
  TALA_ASSIGN_OR_RETURN(auto provider, judges::http::MakeChatProvider(backends.chat.provider));
  TALA_ASSIGN_OR_RETURN(auto http, HttpClient::Create(options.max_in_flight));
  std::unique_ptr<JudgeRunner> runner(new JudgeRunner(std::move(backends), options, cache, clock));
  runner->impl_->provider = std::move(provider);
  runner->impl_->http = std::move(http);
  return runner;
}

std::string JudgeRunner::CacheKey(const ModelCall& call) const {
  const bool embed = call.kind == CallKind::kEmbed;
  const judges::http::ModelSettings& s =
      embed && backends_.embeddings ? *backends_.embeddings : backends_.chat;
  nlohmann::json key = {{"provider", embed ? "openai" : s.provider}, {"model", s.model}};
  if (embed) {
    key["inputs"] = call.inputs;
  } else {
    key["prompt"] = call.prompt_id;
    key["temperature"] = s.send_temperature ? s.temperature : -1.0;
    key["seed"] = s.seed ? *s.seed : -1;
    key["max_tokens"] = s.max_tokens;
    key["structured"] = s.structured_output;
    nlohmann::json messages = nlohmann::json::array();
    for (const auto& m : call.messages) messages.push_back({m.role, m.content});
    key["messages"] = std::move(messages);
    key["schema"] = call.schema;
    if (call.choices > 1) key["n"] = call.choices;
    if (call.logprobs) key["logprobs"] = true;
  }
  return Sha256Hex(key.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

bool JudgeRunner::Cached(const ModelCall& call) {
  return cache_ != nullptr && cache_->Get(CacheKey(call)).has_value();
}

CallCounts& JudgeRunner::CountsFor(const Pending& p) {
  return accounting_.by_prompt[judges::llm::PromptName(p.call)];
}

void JudgeRunner::Admit(const NextUnit& next) {
  const size_t window = static_cast<size_t>(options_.max_in_flight) * 2;
  while (!impl_->exhausted && impl_->rows.size() < window &&
         impl_->ready.size() < static_cast<size_t>(options_.max_in_flight) && fatal_.ok()) {
    std::unique_ptr<Row> row = next();
    if (!row) {
      impl_->exhausted = true;
      break;
    }
    Row* raw = row.get();
    impl_->rows.emplace(raw, std::move(row));
    Advance(raw);
  }
}

// Issues the row's next calls, or hands the row back when it has none left.
void JudgeRunner::Advance(Row* row) {
  std::vector<ModelCall> calls = row->calls->TakeReady();
  if (!calls.empty()) {
    // A call answered at once (cache, offline embeddings) re-enters Advance; the last one may
    // hand the row back, so `row` is not touched after this loop.
    for (ModelCall& call : calls) Issue(row, std::move(call));
    return;
  }
  if (!row->calls->done()) return;
  auto it = impl_->rows.find(row);
  std::unique_ptr<Row> owned = std::move(it->second);
  impl_->rows.erase(it);
  ++rows_done_;
  Status s = owned->sample
                 ? (*impl_->done)(std::move(owned->sample),
                                  static_cast<judges::llm::RowCalls&>(*owned->calls).TakeVerdicts())
                 : (*impl_->source_done)(std::move(owned->calls));
  if (!s.ok() && fatal_.ok()) fatal_ = s;
}

void JudgeRunner::Issue(Row* row, ModelCall call) {
  auto p = std::make_unique<Pending>();
  p->row = row;
  p->messages = call.messages;
  p->call = std::move(call);
  if (p->call.kind == CallKind::kEmbed && !backends_.embeddings) {
    AnswerOffline(std::move(p));
    return;
  }
  p->key = CacheKey(p->call);
  p->token_estimate = EstimateTokens(p->messages, backends_.chat.max_tokens);
  if (AnswerFromCache(*p)) {
    CallOver(std::move(p));
    return;
  }
  impl_->ready.push_back(std::move(p));
}

bool JudgeRunner::AnswerFromCache(Pending& p) {
  if (cache_ == nullptr || !options_.read_cache) return false;
  std::optional<CachedReply> hit = cache_->Get(p.key);
  if (!hit) return false;
  std::string error;
  // A stored reply that no longer parses (a parser change) is asked again.
  if (!Accept(p, hit->text, &error)) return false;
  CallCounts c;
  c.cache_hits = 1;
  c.cached_prompt_tokens = hit->prompt_tokens;
  c.cached_completion_tokens = hit->completion_tokens;
  CountsFor(p).Add(c);
  accounting_.AddShared(p.call.tasks, p.call.question_keys, c);
  accounting_.total.Add(c);
  return true;
}

void JudgeRunner::AnswerOffline(std::unique_ptr<Pending> p) {
  auto vectors = impl_->offline_embedder.Embed(p->call.inputs);
  Status s = vectors ? p->row->calls->AcceptEmbeddings(p->call, *vectors) : vectors.error();
  if (!s.ok()) p->row->calls->Fail(p->call, "offline embeddings: " + s.message());
  CallOver(std::move(p));
}

bool JudgeRunner::Accept(Pending& p, const std::string& text, std::string* error) {
  Status s;
  if (p.call.kind == CallKind::kEmbed) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    std::vector<std::vector<double>> vectors;
    if (!j.is_array()) return *error = "cached embeddings are unreadable", false;
    for (const auto& v : j) {
      if (!v.is_array()) return *error = "cached embeddings are unreadable", false;
      vectors.push_back(v.get<std::vector<double>>());
    }
    s = p.row->calls->AcceptEmbeddings(p.call, vectors);
  } else {
    s = p.row->calls->AcceptChat(p.call, text);
  }
  if (!s.ok()) *error = s.message();
  return s.ok();
}

std::optional<TimePoint> JudgeRunner::SendReady() {
  while (!impl_->ready.empty() && impl_->http->in_flight() < options_.max_in_flight) {
    Pending& p = *impl_->ready.front();
    TimePoint now = clock_.Now();
    if (p.call.kind != CallKind::kEmbed) {
      TimePoint at = impl_->limiter.ReadyAt(p.token_estimate, now);
      if (at > now) return at;
      impl_->limiter.Take(p.token_estimate, now);
    }
    std::unique_ptr<Pending> owned = std::move(impl_->ready.front());
    impl_->ready.pop_front();
    Send(std::move(owned));
  }
  return std::nullopt;
}

void JudgeRunner::Send(std::unique_ptr<Pending> p) {
  judges::http::HttpRequest request =
      p->call.kind == CallKind::kEmbed
          ? judges::http::BuildEmbeddingsRequest(*backends_.embeddings, p->call.inputs)
          : impl_->provider->BuildChat(
                backends_.chat, p->messages, p->call.schema,
                {p->call.choices, p->call.logprobs, p->call.cache_key, p->call.row_first});
  CallCounts c;
  c.requests = 1;
  CountsFor(*p).Add(c);
  accounting_.total.Add(c);
  Pending* raw = p.get();
  impl_->in_flight.emplace(raw, std::move(p));
  impl_->http->Start(request, options_.timeout, [this, raw](Result<HttpResponse> response) {
    OnResponse(raw, std::move(response));
  });
}

void JudgeRunner::OnResponse(Pending* raw, Result<HttpResponse> response) {
  auto it = impl_->in_flight.find(raw);
  std::unique_ptr<Pending> p = std::move(it->second);
  impl_->in_flight.erase(it);
  if (!response) {
    if (response.error().code() == ErrorCode::kCancelled) return;
    StopIfUnreachable();
    RetryOrFail(std::move(p), response.error(), std::nullopt);
    return;
  }
  const HttpResponse& r = *response;
  const bool embed = p->call.kind == CallKind::kEmbed;
  const char* provider = embed ? "embeddings" : impl_->provider->name();
  if (r.status < 200 || r.status >= 300) {
    Status s = judges::http::StatusForHttpError(provider, r);
    if ((r.status == 401 || r.status == 403 || r.status == 404) && fatal_.ok()) fatal_ = s;
    RetryOrFail(std::move(p), s,
                ParseRetryAfter(r.Header("retry-after"), r.Header("retry-after-ms"), UnixNow()));
    return;
  }
  CallCounts c;
  std::string text, error;
  bool cut_off = false;
  // A server's usage counter is trusted up to a sane multiple of what was sent (F24, N8): a
  // proxy or a broken counter must not bill a day's budget in one reply.
  auto clamp = [this](int64_t reported, double bound) {
    int64_t cap = static_cast<int64_t>(bound);
    if (reported >= 0 && reported <= cap) return reported;
    ++accounting_.usage_clamped;
    return std::clamp<int64_t>(reported, 0, cap);
  };
  size_t sent_chars = 0;
  for (const auto& m : p->messages) sent_chars += m.content.size();
  for (const std::string& input : p->call.inputs) sent_chars += input.size();
  const double prompt_bound = 1000.0 + 10.0 * static_cast<double>(sent_chars);
  const double completion_bound =
      1000.0 + 4.0 * static_cast<double>(backends_.chat.max_tokens) * std::max(1, p->call.choices);
  if (embed) {
    auto reply = judges::http::ParseEmbeddingsResponse(r, p->call.inputs.size());
    if (!reply) return RetryOrFail(std::move(p), reply.error(), std::nullopt);
    c.prompt_tokens = clamp(reply->prompt_tokens, prompt_bound);
    text = nlohmann::json(reply->vectors).dump();
  } else {
    auto reply = impl_->provider->ParseChat(r);
    if (!reply) return RetryOrFail(std::move(p), reply.error(), std::nullopt);
    c.prompt_tokens = clamp(reply->prompt_tokens, prompt_bound);
    c.completion_tokens = clamp(reply->completion_tokens, completion_bound);
    // The provider cache's part of the prompt, never more than the prompt.
    c.provider_cache_read_tokens =
        clamp(reply->cache_read_tokens, static_cast<double>(c.prompt_tokens));
    c.provider_cache_write_tokens =
        clamp(reply->cache_write_tokens,
              static_cast<double>(c.prompt_tokens - c.provider_cache_read_tokens));
    impl_->limiter.AdjustTokens(static_cast<double>(c.prompt_tokens + c.completion_tokens) -
                                p->token_estimate);
    // Several choices or log-probabilities travel packed in one text, as the cache stores it.
    text = p->call.choices > 1 || p->call.logprobs ? judges::llm::PackReply(*reply)
                                                   : std::move(reply->text);
    cut_off = reply->finish_reason == "length";
    if (!reply->model.empty()) accounting_.models_reported.insert(reply->model);
    if (!reply->system_fingerprint.empty()) {
      accounting_.system_fingerprints.insert(reply->system_fingerprint);
    }
  }
  CountsFor(*p).Add(c);
  accounting_.AddShared(p->call.tasks, p->call.question_keys, c);
  accounting_.total.Add(c);
  if (Accept(*p, text, &error)) {
    ++impl_->usable_replies;
    CallCounts answered;
    answered.calls = 1;
    CountsFor(*p).Add(answered);
    accounting_.AddShared(p->call.tasks, p->call.question_keys, answered);
    accounting_.total.Add(answered);
    if (cache_ != nullptr && options_.write_cache) {
      const auto& model = embed ? backends_.embeddings->model : backends_.chat.model;
      cache_->Put(p->key, model, p->call.prompt_id, {text, c.prompt_tokens, c.completion_tokens});
    }
    return CallOver(std::move(p));
  }
  if (!embed && !p->repaired) {
    // One repair: show the model its reply and what was wrong with it.
    p->repaired = true;
    p->messages.push_back({"assistant", text});
    p->messages.push_back({"user", RepairRequest(error, cut_off)});
    p->token_estimate = EstimateTokens(p->messages, backends_.chat.max_tokens);
    CallCounts repair;
    repair.repairs = 1;
    CountsFor(*p).Add(repair);
    accounting_.total.Add(repair);
    impl_->ready.push_front(std::move(p));
    return;
  }
  // The model answered (and billed) this call, even if nothing usable came of it (F12).
  CallCounts failed;
  failed.calls = 1;
  failed.failed = 1;
  // A judge that breaks the reply contract on every one of its first calls will break it on
  // the rest: stop, rather than pay for every row (a circuit breaker).
  constexpr int64_t kContractBreaker = 20;
  if (++impl_->unusable_replies >= kContractBreaker && impl_->usable_replies == 0 && fatal_.ok()) {
    fatal_ = Status(ErrorCode::kBadReply,
                    "the judge's first " + std::to_string(impl_->unusable_replies) +
                        " replies were all unusable, even after a repair request (last: " + error +
                        "); stopping instead of paying for every row. Try "
                        "--no-structured-output, a larger --max-tokens, or another model");
  }
  CountsFor(*p).Add(failed);
  accounting_.total.Add(failed);
  p->row->calls->Fail(p->call,
                      std::string(judges::llm::CallKindName(p->call.kind)) +
                          ": the reply stayed unreadable after a repair request: " + error);
  CallOver(std::move(p));
}

// When the first requests all fail before reaching a server (refused, unresolved) and no
// request has been answered at all, the URL is wrong or the server is down: every retry of
// every call would fail alike, so the run stops with that reason instead of retrying each call
// to its limit. A server that answered once and then drops is a flaky link, and retried.
void JudgeRunner::StopIfUnreachable() {
  constexpr int64_t kUnreachableLimit = 3;
  const HttpClient& http = *impl_->http;
  if (!fatal_.ok() || http.responses() > 0 || http.unreachable() < kUnreachableLimit) return;
  fatal_ = Status(ErrorCode::kUnavailable,
                  "cannot reach the judge: " + http.first_unreachable() + " (the first " +
                      std::to_string(http.unreachable()) +
                      " requests could not connect and none was answered; is the server "
                      "running, and is --base-url right?)");
}

void JudgeRunner::RetryOrFail(std::unique_ptr<Pending> p, const Status& error,
                              std::optional<Duration> retry_after) {
  std::optional<Duration> delay;
  if (fatal_.ok()) delay = impl_->retry.Delay(error.code(), p->retries + 1, retry_after);
  if (delay) {
    ++p->retries;
    CallCounts c;
    c.retries = 1;
    CountsFor(*p).Add(c);
    accounting_.total.Add(c);
    impl_->waiting.emplace(clock_.Now() + *delay, std::move(p));
    return;
  }
  CallCounts c;
  c.failed = 1;
  CountsFor(*p).Add(c);
  accounting_.total.Add(c);
  std::string tries = p->retries > 0 ? " after " + std::to_string(p->retries + 1) + " tries" : "";
  p->row->calls->Fail(p->call, std::string(judges::llm::CallKindName(p->call.kind)) +
                                   " call failed" + tries + ": " + error.ToString());
  CallOver(std::move(p));
}

void JudgeRunner::CallOver(std::unique_ptr<Pending> p) {
  Row* row = p->row;
  p.reset();
  Advance(row);
}

void JudgeRunner::CancelEverything() {
  impl_->http->CancelAll();
  impl_->in_flight.clear();
  impl_->ready.clear();
  impl_->waiting.clear();
  impl_->rows.clear();
}

Status JudgeRunner::Run(const NextRow& next, const PlanRow& plan, const RowDone& done,
                        const std::atomic<bool>* stop, const Tick& tick) {
  impl_->done = &done;
  return Loop(
      [&]() -> std::unique_ptr<Row> {
        std::unique_ptr<Sample> sample = next();
        if (!sample) return nullptr;
        auto row = std::make_unique<Row>();
        row->calls =
            std::make_unique<judges::llm::RowCalls>(*sample, plan(*sample), options_.calls);
        row->sample = std::move(sample);
        return row;
      },
      stop, tick);
}

Status JudgeRunner::RunSources(const NextSource& next, const SourceDone& done,
                               const std::atomic<bool>* stop, const Tick& tick) {
  impl_->source_done = &done;
  return Loop(
      [&]() -> std::unique_ptr<Row> {
        std::unique_ptr<judges::llm::CallSource> source = next();
        if (!source) return nullptr;
        auto row = std::make_unique<Row>();
        row->calls = std::move(source);
        return row;
      },
      stop, tick);
}

Status JudgeRunner::Loop(const NextUnit& next, const std::atomic<bool>* stop, const Tick& tick) {
  impl_->exhausted = false;
  const auto kSlice = std::chrono::milliseconds(50);
  while (true) {
    if (stop != nullptr && stop->load()) {
      CancelEverything();
      return {ErrorCode::kCancelled, "stopped by the user"};
    }
    if (!fatal_.ok()) {
      CancelEverything();
      return fatal_;
    }
    Admit(next);
    TimePoint now = clock_.Now();
    while (!impl_->waiting.empty() && impl_->waiting.begin()->first <= now) {
      impl_->ready.push_back(std::move(impl_->waiting.begin()->second));
      impl_->waiting.erase(impl_->waiting.begin());
    }
    std::optional<TimePoint> wake = SendReady();
    if (impl_->exhausted && impl_->rows.empty()) break;
    if (!impl_->waiting.empty()) {
      wake = wake ? std::min(*wake, impl_->waiting.begin()->first) : impl_->waiting.begin()->first;
    }
    if (tick) {
      tick({rows_done_, 0, impl_->http->in_flight(), accounting_.total.cache_hits,
            accounting_.total.failed, accounting_.total.retries,
            accounting_.total.prompt_tokens + accounting_.total.completion_tokens});
    }
    if (impl_->http->in_flight() > 0) {
      auto wait = kSlice;
      if (wake) {
        auto until = std::chrono::duration_cast<std::chrono::milliseconds>(*wake - clock_.Now());
        wait = std::clamp(until, std::chrono::milliseconds(0), kSlice);
      }
      impl_->http->Poll(wait);
    } else if (wake) {
      // Sleep in slices so Ctrl-C is noticed while a long Retry-After runs.
      clock_.SleepUntil(std::min(*wake, clock_.Now() + std::chrono::milliseconds(200)));
    } else if (impl_->ready.empty() && !impl_->rows.empty()) {
      CancelEverything();
      return Internal("the judge runtime stalled with rows left and nothing to wait for");
    }
  }
  if (tick) {
    tick({rows_done_, 0, 0, accounting_.total.cache_hits, accounting_.total.failed,
          accounting_.total.retries,
          accounting_.total.prompt_tokens + accounting_.total.completion_tokens});
  }
  return fatal_;
}

}  // namespace tala::runtime
