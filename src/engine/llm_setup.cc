#include "engine/llm_setup.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "judges/llm/prompts.h"
#include "judges/offline/sentence_encoder.h"
#include "metrics/registry.h"

namespace tala {

namespace {

// The offline judge's sentence encoder for the labelled examples' nearness, when it is
// installed: one encoder per thread (an encoder is not thread-safe; the model is read once per
// process). Empty without it: the examples are then picked by their words.
judges::llm::EncodeTexts ExampleEncoder() {
  if (!judges::offline::SentenceEncoder::Available().ok()) return {};
  return [](std::span<const std::string> texts) -> Result<std::vector<std::vector<double>>> {
    thread_local std::unique_ptr<judges::offline::SentenceEncoder> encoder;
    if (!encoder) {
      TALA_ASSIGN_OR_RETURN(encoder, judges::offline::SentenceEncoder::Shared());
    }
    return encoder->Embed(texts);
  };
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

constexpr const char* kOpenAiUrl = "https://api.openai.com/v1";
constexpr const char* kAnthropicUrl = "https://api.anthropic.com/v1";

std::optional<runtime::Price> PriceFor(const std::string& model, const LlmOptions& o) {
  std::optional<runtime::Price> price = runtime::KnownPrice(model);
  if (o.price_input || o.price_output || o.price_cached_input || o.price_cache_write) {
    runtime::Price p = price.value_or(runtime::Price{});
    if (o.price_input) p.input = *o.price_input;
    if (o.price_output) p.output = *o.price_output;
    if (o.price_cached_input) p.cached_input = *o.price_cached_input;
    if (o.price_cache_write) p.cache_write = *o.price_cache_write;
    price = p;
  }
  return price;
}

Result<std::optional<judges::http::ModelSettings>> EmbeddingSettings(
    const judges::http::ModelSettings& chat, const LlmOptions& o) {
  std::string spec = o.embeddings;
  if (spec == "auto") {
    spec = chat.provider == "openai" ? "openai:text-embedding-3-small" : "offline";
  }
  if (spec == "offline") return std::optional<judges::http::ModelSettings>();
  if (spec.rfind("openai:", 0) != 0 || spec.size() <= 7) {
    return InvalidArgument("--embeddings: expected offline, auto or openai:MODEL, got \"" +
                           o.embeddings + "\"");
  }
  judges::http::ModelSettings e;
  e.provider = "openai";
  e.model = spec.substr(7);
  if (!o.embeddings_base_url.empty()) {
    e.base_url = o.embeddings_base_url;
  } else if (chat.provider == "openai") {
    e.base_url = chat.base_url;
  } else {
    e.base_url = Env("OPENAI_BASE_URL").empty() ? kOpenAiUrl : Env("OPENAI_BASE_URL");
  }
  e.api_key = chat.provider == "openai" ? chat.api_key : Env("OPENAI_API_KEY");
  if (e.base_url == kOpenAiUrl && e.api_key.empty() && !o.estimate_only) {
    return InvalidArgument(
        "--embeddings " + spec +
        ": OPENAI_API_KEY is not set (or pass --embeddings offline for offline embeddings)");
  }
  return std::optional<judges::http::ModelSettings>(e);
}

CallTally ToTally(const runtime::CallCounts& c, const std::optional<runtime::Price>& price) {
  CallTally t{c.calls,   c.cache_hits, c.requests,      c.retries,
              c.repairs, c.failed,     c.prompt_tokens, c.completion_tokens};
  t.cache_read_tokens = c.provider_cache_read_tokens;
  t.cache_write_tokens = c.provider_cache_write_tokens;
  if (price) t.cost_usd = runtime::Cost(c, *price);
  return t;
}

}  // namespace

bool IsLlmJudge(const std::string& spec) {
  return spec.rfind("openai:", 0) == 0 || spec.rfind("anthropic:", 0) == 0;
}

Result<LlmSetup> SetUpLlm(const std::string& spec, const LlmOptions& o,
                          std::vector<std::string>* warnings) {
  LlmSetup setup;
  size_t colon = spec.find(':');
  judges::http::ModelSettings& chat = setup.backends.chat;
  chat.provider = spec.substr(0, colon);
  chat.model = spec.substr(colon + 1);
  if (chat.model.empty()) {
    return InvalidArgument(
        "--judge " + spec + ": name the model, e.g. " + chat.provider +
        (chat.provider == "openai" ? ":gpt-4o-mini" : ":claude-3-5-haiku-latest"));
  }
  const bool openai = chat.provider == "openai";
  chat.base_url = o.base_url;
  if (chat.base_url.empty()) chat.base_url = Env(openai ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL");
  if (chat.base_url.empty()) chat.base_url = openai ? kOpenAiUrl : kAnthropicUrl;
  chat.api_key =
      o.api_key.empty() ? Env(openai ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY") : o.api_key;
  if (chat.api_key.empty() && !o.estimate_only &&
      (chat.base_url == kOpenAiUrl || chat.base_url == kAnthropicUrl)) {
    return InvalidArgument(std::string(openai ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY") +
                           " is not set: the hosted API needs a key (a local server given by "
                           "--base-url does not)");
  }
  chat.temperature = o.temperature;
  chat.send_temperature = o.send_temperature;
  chat.seed = openai ? o.seed : std::nullopt;  // the Messages API has no seed
  chat.max_tokens = o.max_tokens;
  chat.structured_output = o.structured_output;
  TALA_ASSIGN_OR_RETURN(setup.backends.embeddings, EmbeddingSettings(chat, o));

  runtime::RuntimeOptions& r = setup.runtime;
  if (o.max_in_flight < 1) return InvalidArgument("--max-in-flight must be at least 1");
  r.max_in_flight = o.max_in_flight;
  r.requests_per_minute = o.requests_per_minute;
  r.tokens_per_minute = o.tokens_per_minute;
  r.timeout = std::chrono::milliseconds(o.timeout_ms);
  r.retry.max_retries = o.max_retries;
  if (o.batching == "per-chunk") {
    r.calls.batching = judges::llm::Batching::kPerChunk;
  } else if (o.batching != "batched") {
    return InvalidArgument("--batching: expected batched or per-chunk, got \"" + o.batching + "\"");
  }
  r.calls.questions = o.questions;
  if (o.layout == "combined") {
    r.calls.layout = judges::llm::Layout::kCombined;
  } else if (o.layout == "row-first") {
    r.calls.layout = judges::llm::Layout::kRowFirst;
  } else if (o.layout == "auto") {
    r.calls.layout = judges::llm::Layout::kAuto;
  } else if (o.layout != "separate") {
    return InvalidArgument("--layout: expected auto, separate, row-first or combined, got \"" +
                           o.layout + "\"");
  }
  if (r.calls.layout != judges::llm::Layout::kSeparate &&
      r.calls.batching != judges::llm::Batching::kBatched) {
    // Per-chunk calls each show one chunk: neither one row prefix nor one call holds them all.
    return InvalidArgument("--layout " + o.layout +
                           ": the row-first and combined layouts show every chunk in each call; "
                           "use --layout separate with --batching per-chunk");
  }
  if (o.cache != "off") {
    std::string warning;
    TALA_ASSIGN_OR_RETURN(setup.cache, runtime::Cache::Open(o.cache, &warning));
    if (!warning.empty() && warnings) warnings->push_back(warning);
  }
  if (!o.labelled_examples.empty()) {
    // A judge profile's labelled rows: each metric's tasks say which calls carry its examples.
    std::map<std::string, TaskSet> tasks_of;
    std::vector<judges::llm::Example> examples;
    for (const LabelledExample& e : o.labelled_examples) {
      if (!tasks_of.count(e.metric)) {
        auto specs = metrics::ParseMetricSpecs(e.metric);
        if (!specs) {
          return InvalidArgument("--judge-profile: its examples are of \"" + e.metric +
                                 "\", which is not a metric tala knows");
        }
        auto metrics = metrics::CreateMetrics(*specs);
        if (!metrics) return metrics.error();
        TaskSet tasks = 0;
        for (const auto& m : *metrics) tasks |= m->tasks();
        tasks_of[e.metric] = tasks;
      }
      examples.push_back({e.metric, e.question, e.answer, e.right});
    }
    if (o.examples_per_call < 1) return InvalidArgument("examples_per_call must be at least 1");
    r.calls.examples = std::make_shared<const judges::llm::ExampleBank>(
        std::move(examples), std::move(tasks_of), o.examples_per_call, ExampleEncoder(),
        judges::offline::SentenceEncoder::kName);
  }
  setup.price = PriceFor(chat.model, o);
  // What --layout auto weighs: how the provider's prompt cache bills a prompt's fixed start.
  // OpenAI reads the schema before the messages and caches from 1,024 tokens on, at half the
  // input price or less; Anthropic caches the instructions tala marks, from 1,024 tokens on
  // (2,048 for Haiku models), at a tenth. The model's own prices, when known, say the ratio.
  r.calls.schema_in_prefix = openai && chat.structured_output;
  r.calls.cache_min_tokens = !openai && chat.model.find("haiku") != std::string::npos ? 2048 : 1024;
  r.calls.cached_input_ratio = openai ? 0.5 : 0.1;
  r.calls.cache_write_ratio = openai ? 1.0 : 1.25;
  if (setup.price && setup.price->input > 0 && setup.price->cached_input) {
    r.calls.cached_input_ratio = *setup.price->cached_input / setup.price->input;
  }
  if (setup.price && setup.price->input > 0 && setup.price->cache_write) {
    r.calls.cache_write_ratio = *setup.price->cache_write / setup.price->input;
  }
  // OpenAI's own API takes a prompt_cache_key; compatible servers may refuse a field they do
  // not know, so by default it goes only to api.openai.com.
  if (o.prompt_cache_key != "auto" && o.prompt_cache_key != "on" && o.prompt_cache_key != "off") {
    return InvalidArgument("--prompt-cache-key: expected auto, on or off, got \"" +
                           o.prompt_cache_key + "\"");
  }
  chat.prompt_cache_key =
      openai && (o.prompt_cache_key == "on" ||
                 (o.prompt_cache_key == "auto" && chat.base_url.rfind(kOpenAiUrl, 0) == 0));
  if (setup.backends.embeddings)
    setup.embeddings_price = runtime::KnownPrice(setup.backends.embeddings->model);
  setup.judge_name = spec;
  setup.embeddings_name =
      setup.backends.embeddings ? "openai:" + setup.backends.embeddings->model : "offline";
  return setup;
}

RunAccounting ToRunAccounting(const runtime::Accounting& a, const LlmSetup& setup,
                              const std::vector<std::unique_ptr<Metric>>& metrics) {
  RunAccounting out;
  out.used = true;
  out.models_reported.assign(a.models_reported.begin(), a.models_reported.end());
  out.system_fingerprints.assign(a.system_fingerprints.begin(), a.system_fingerprints.end());
  auto price_of = [&](const std::string& prompt) {
    return prompt == "embeddings" ? setup.embeddings_price : setup.price;
  };
  double cost = 0;
  bool cost_known = true;
  for (const auto& [prompt, counts] : a.by_prompt) {
    std::string name = prompt == "embeddings" ? prompt : judges::llm::GetPrompt(prompt).id();
    CallTally t = ToTally(counts, price_of(prompt));
    if (t.cost_usd) {
      cost += *t.cost_usd;
    } else if (counts.prompt_tokens + counts.completion_tokens > 0) {
      cost_known = false;
    }
    out.by_prompt.emplace_back(name, t);
  }
  out.total = ToTally(a.total, std::nullopt);
  if (cost_known) out.total.cost_usd = cost;
  // A shared call counts a share for each metric that needs it, so the metrics add up.
  std::vector<runtime::CallCounts> per_metric(metrics.size());
  auto share_among = [&](const std::vector<size_t>& users, const runtime::CallCounts& counts) {
    if (users.empty()) return;
    auto share = [&](int64_t v, size_t k) {
      int64_t n = static_cast<int64_t>(users.size());
      return v / n + (static_cast<int64_t>(k) < v % n ? 1 : 0);
    };
    for (size_t k = 0; k < users.size(); ++k) {
      runtime::CallCounts c;
      c.calls = share(counts.calls, k);
      c.cache_hits = share(counts.cache_hits, k);
      c.prompt_tokens = share(counts.prompt_tokens, k);
      c.completion_tokens = share(counts.completion_tokens, k);
      c.provider_cache_read_tokens = share(counts.provider_cache_read_tokens, k);
      c.provider_cache_write_tokens = share(counts.provider_cache_write_tokens, k);
      per_metric[users[k]].Add(c);
    }
  };
  for (const auto& [tasks, counts] : a.by_tasks) {
    std::vector<size_t> users;
    for (size_t i = 0; i < metrics.size(); ++i) {
      // Question calls are counted apart (by_questions), so the shared bit is left out here.
      TaskSet shared = metrics[i]->tasks() & ~static_cast<TaskSet>(JudgeTask::kAnswerQuestions);
      if (shared & tasks) users.push_back(i);
    }
    share_among(users, counts);
  }
  for (const auto& [joined, counts] : a.by_questions) {
    std::vector<size_t> users;
    for (size_t i = 0; i < metrics.size(); ++i) {
      std::string key = metrics[i]->question_key();
      if (key.empty()) continue;
      std::string haystack = "\n" + joined + "\n";
      if (haystack.find("\n" + key + "\n") != std::string::npos) users.push_back(i);
    }
    share_among(users, counts);
  }
  for (size_t i = 0; i < metrics.size(); ++i) {
    if (metrics[i]->tasks() == 0) continue;
    out.by_metric.emplace_back(metrics[i]->key(), ToTally(per_metric[i], std::nullopt));
  }
  return out;
}

// 1024 -> "1,024".
static std::string WithThousands(int64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::optional<std::string> LayoutNote(const runtime::Accounting& estimate, const LlmSetup& setup) {
  auto at = [&](const char* name) {
    auto it = estimate.layout_billed.find(name);
    return it == estimate.layout_billed.end() ? 0.0 : it->second;
  };
  const double separate = at("separate"), row_first = at("row-first"), combined = at("combined"),
               chosen = at("auto");
  if (separate <= 0 || (row_first == separate && combined == separate)) return std::nullopt;
  return fmt::format(
      "layouts: the chat calls would bill about {:.0f} input tokens with --layout separate, "
      "{:.0f} with row-first ({:.2f}x), {:.0f} with combined ({:.2f}x) and {:.0f} with auto "
      "({:.2f}x: for each row, the layout estimated to bill least), the provider's prompt cache "
      "included (cached and written tokens counted at their price); this run uses --layout {}",
      separate, row_first, row_first / separate, combined, combined / separate, chosen,
      chosen / separate, judges::llm::LayoutName(setup.runtime.calls.layout));
}

std::optional<std::string> ProviderCacheNote(const runtime::Accounting& estimate,
                                             const LlmSetup& setup) {
  if (estimate.shared_start.empty()) return std::nullopt;
  const bool anthropic = setup.backends.chat.provider == "anthropic";
  // The start a provider's cache reads: OpenAI's from the schema on (with structured output),
  // Anthropic's the instructions tala marks. Its minimum: runtime.calls.cache_min_tokens.
  const int64_t minimum = setup.runtime.calls.cache_min_tokens;
  const std::string who = anthropic ? "Anthropic" : "OpenAI";
  std::string each;
  int64_t longest = 0;
  for (const auto& [prompt, start] : estimate.shared_start) {
    int64_t tokens = static_cast<int64_t>(start.size()) / 4;
    if (!anthropic && setup.backends.chat.structured_output) {
      tokens += static_cast<int64_t>(estimate.shared_schema.count(prompt)
                                         ? estimate.shared_schema.at(prompt).size()
                                         : 0) /
                4;
    }
    longest = std::max(longest, tokens);
    each += (each.empty() ? "" : ", ") + prompt + " " + std::to_string(tokens);
  }
  // The row-first layout's start is a row's own data, shared by that row's calls.
  const std::string row_prefix =
      estimate.row_prefix_rows == 0
          ? ""
          : "; sent first (--layout row-first), a row's own data reaches it in " +
                std::to_string(estimate.row_prefix_cacheable) + " of " +
                std::to_string(estimate.row_prefix_rows) + " rows";
  const std::string layout =
      "; --layout " + std::string(judges::llm::LayoutName(setup.runtime.calls.layout)) +
      " (--layout combined sends a row's chunks once, in one call whose start is longer)";
  if (longest < minimum) {
    return "provider prompt cache: none applies: the calls of each prompt share at most " +
           std::to_string(longest) + " tokens at their start (" + each + "), under " + who + "'s " +
           WithThousands(minimum) + "-token minimum for cached input" + row_prefix +
           "; every prompt token is estimated at the input price" +
           (setup.runtime.calls.layout == judges::llm::Layout::kSeparate ? layout : "");
  }
  return "provider prompt cache: the calls of a prompt share up to " + std::to_string(longest) +
         " tokens at their start (" + each + "), which " + who +
         " may serve from its prompt cache at the cached price" + row_prefix +
         "; this estimate bills every "
         "prompt token at the input price, so the run may cost less";
}

int64_t EstimatePromptTokens(const judges::llm::ModelCall& call, const LlmSetup& setup) {
  int64_t prompt = 0;
  for (const auto& m : call.messages) prompt += static_cast<int64_t>(m.content.size()) / 4;
  if (setup.backends.chat.structured_output) prompt += static_cast<int64_t>(call.schema.size()) / 4;
  return prompt;
}

void AddEstimatedCall(const judges::llm::ModelCall& call, int64_t prompt, int64_t completion,
                      bool may_be_cached, runtime::JudgeRunner& runner, const LlmSetup& setup,
                      runtime::Accounting& estimate) {
  const bool remote = call.kind != judges::llm::CallKind::kEmbed || setup.backends.embeddings;
  if (!remote) return;
  if (call.kind != judges::llm::CallKind::kEmbed && !call.messages.empty()) {
    // Anthropic's cache reads only the instructions tala marks; OpenAI's the whole start.
    std::string text;
    for (const auto& m : call.messages) {
      text += m.content + '\n';
      if (setup.backends.chat.provider == "anthropic") break;
    }
    estimate.shared_schema.try_emplace(judges::llm::PromptName(call), call.schema);
    auto [it, first] = estimate.shared_start.try_emplace(judges::llm::PromptName(call), text);
    if (!first) {
      const auto end =
          std::mismatch(it->second.begin(), it->second.end(), text.begin(), text.end());
      it->second.erase(end.first, it->second.end());
    }
  }
  runtime::CallCounts c;
  if (may_be_cached && runner.Cached(call)) {
    c.cache_hits = 1;
  } else {
    c.calls = 1;
    c.requests = 1;
    c.prompt_tokens = prompt;
    c.completion_tokens = completion;
  }
  estimate.by_prompt[judges::llm::PromptName(call)].Add(c);
  estimate.AddShared(call.tasks, call.question_keys, c);
  estimate.total.Add(c);
}

void EstimateRow(const Sample& sample, const judges::RowPlan& plan, runtime::JudgeRunner& runner,
                 const LlmSetup& setup, runtime::Accounting& estimate) {
  const TaskSet tasks = plan.tasks;
  judges::llm::RowCalls calls(sample, plan, setup.runtime.calls);
  auto add = [&](const judges::llm::ModelCall& call, int64_t prompt, int64_t completion,
                 bool may_be_cached = true) {
    AddEstimatedCall(call, prompt, completion, may_be_cached, runner, setup, estimate);
  };
  const int64_t response = static_cast<int64_t>(sample.response.value_or("").size()) / 4;
  const int64_t reference = static_cast<int64_t>(sample.reference.value_or("").size()) / 4;
  // What each layout would bill for this row, whichever the run uses.
  if (setup.runtime.calls.batching == judges::llm::Batching::kBatched) {
    for (judges::llm::Layout layout :
         {judges::llm::Layout::kSeparate, judges::llm::Layout::kRowFirst,
          judges::llm::Layout::kCombined, judges::llm::Layout::kAuto}) {
      judges::llm::CallOptions options = setup.runtime.calls;
      options.layout = layout;
      judges::llm::RowCalls alternative(sample, plan, options);
      std::vector<judges::llm::ModelCall> chat;
      for (judges::llm::ModelCall& call : alternative.FirstCalls()) {
        if (call.kind != judges::llm::CallKind::kEmbed) chat.push_back(std::move(call));
      }
      estimate.layout_billed[judges::llm::LayoutName(layout)] +=
          judges::llm::EstimatedRowBilledTokens(chat, options);
      if (layout == judges::llm::Layout::kRowFirst && !chat.empty() && chat.front().row_first) {
        ++estimate.row_prefix_rows;
        if (judges::llm::RowFirstPrefixTokens(chat.front()) >=
            static_cast<double>(options.cache_min_tokens)) {
          ++estimate.row_prefix_cacheable;
        }
      }
    }
  }
  for (const judges::llm::ModelCall& call : calls.FirstCalls()) {
    const int64_t prompt = EstimatePromptTokens(call, setup);
    // Replies restate each claim plus a few tokens of verdict; chunk ratings are ~12 tokens.
    int64_t completion = 30;
    switch (call.kind) {
      case judges::llm::CallKind::kResponseClaims:
        completion = response * 3 / 2 + 20;
        break;
      case judges::llm::CallKind::kReferenceClaims:
        completion = reference * 3 / 2 + 20;
        break;
      case judges::llm::CallKind::kRateChunks:
        completion = 12 * (call.chunk_end - call.chunk_begin) + 8;
        break;
      case judges::llm::CallKind::kRowVerdicts:  // the three replies above, as parts of one
        completion = 8;
        if (call.tasks &
            (JudgeTask::kVerifyResponseClaims | JudgeTask::kCheckClaimsAgainstReference)) {
          completion += response * 3 / 2 + 20;
        }
        if (call.tasks &
            (JudgeTask::kAttributeReferenceClaims | JudgeTask::kFindReferenceClaimsInResponse)) {
          completion += reference * 3 / 2 + 20;
        }
        completion += 12 * (call.chunk_end - call.chunk_begin);
        break;
      case judges::llm::CallKind::kGenerateQuestions:
        completion = 20 * call.questions + 12;
        break;
      case judges::llm::CallKind::kCriteria:
        completion = 40 * static_cast<int64_t>(call.question_keys.size()) * call.choices;
        break;
      default:
        break;
    }
    add(call, prompt, completion);
    // The second call of a summary (answers from the summary) and of G-Eval (the score) waits on
    // the first one's reply: counted here at about its size, never as a cache hit.
    if (call.kind == judges::llm::CallKind::kSummaryQuestions ||
        call.kind == judges::llm::CallKind::kGEvalSteps) {
      judges::llm::ModelCall next;
      bool summary = call.kind == judges::llm::CallKind::kSummaryQuestions;
      next.kind =
          summary ? judges::llm::CallKind::kSummaryAnswers : judges::llm::CallKind::kGEvalScore;
      next.prompt_id = judges::llm::GetPrompt(summary ? "summary_answers" : "g_eval_score").id();
      next.question_keys = call.question_keys;
      next.tasks = call.tasks;
      add(next, prompt + response, summary ? 60 : 40, /*may_be_cached=*/false);
    }
  }
  if (Contains(tasks, JudgeTask::kGenerateQuestions) ||
      Contains(tasks, JudgeTask::kEmbedResponseAndReference)) {
    judges::llm::ModelCall embed;
    embed.kind = judges::llm::CallKind::kEmbed;
    embed.tasks = tasks & (JudgeTask::kGenerateQuestions | JudgeTask::kEmbedResponseAndReference);
    int64_t tokens = static_cast<int64_t>(judges::llm::QuestionText(sample).size()) / 4 +
                     20 * setup.runtime.calls.questions + response + reference;
    // The inputs depend on the generated questions, so the cache cannot be asked ahead.
    runtime::CallCounts c;
    if (setup.backends.embeddings) {
      c.calls = c.requests = 1;
      c.prompt_tokens = tokens;
      estimate.by_prompt["embeddings"].Add(c);
      estimate.by_tasks[embed.tasks].Add(c);
      estimate.total.Add(c);
    }
  }
}

}  // namespace tala
