// The LLM judge's flags, shared by the commands that call one (tala eval, tala testset).

#include "cli/llm_flags.h"

namespace tala::cli {

void AddLlmOptions(CLI::App* cmd, LlmOptions& l, std::string* seed, bool for_metrics) {
  const char* g = "LLM judge (openai:MODEL, anthropic:MODEL)";
  cmd->add_option("--base-url", l.base_url,
                  "judge server URL, e.g. http://localhost:8000/v1 for vLLM, Ollama, llama.cpp "
                  "or LM Studio (default: OPENAI_BASE_URL or ANTHROPIC_BASE_URL, else the "
                  "provider's API)")
      ->envname("TALA_BASE_URL")
      ->group(g);
  cmd->add_option("--embeddings", l.embeddings,
                  std::string(for_metrics ? "embeddings for response_relevancy and semantic "
                                            "similarity"
                                          : "embeddings that read the intents' and chunks' "
                                            "meaning") +
                      ": auto (openai judges: openai:text-embedding-3-small on the same server; "
                      "others: offline), offline, or openai:MODEL")
      ->capture_default_str()
      ->envname("TALA_EMBEDDINGS")
      ->group(g);
  cmd->add_option("--embeddings-base-url", l.embeddings_base_url,
                  "embeddings server URL (default: the judge's)")
      ->envname("TALA_EMBEDDINGS_BASE_URL")
      ->group(g);
  cmd->add_option("--temperature", l.temperature, "sampling temperature")
      ->capture_default_str()
      ->envname("TALA_TEMPERATURE")
      ->check(CLI::Range(0.0, 2.0))
      ->group(g);
  cmd->add_flag("!--no-temperature", l.send_temperature,
                "send no temperature (for models that reject one)")
      ->group(g);
  if (seed != nullptr) {
    cmd->add_option("--seed", *seed, "sampling seed sent to OpenAI-compatible servers, or none")
        ->capture_default_str()
        ->envname("TALA_SEED")
        ->group(g);
  }
  cmd->add_option("--max-tokens", l.max_tokens, "completion token limit per call")
      ->capture_default_str()
      ->envname("TALA_MAX_TOKENS")
      ->check(CLI::PositiveNumber)
      ->group(g);
  cmd->add_flag("!--no-structured-output", l.structured_output,
                "do not send a JSON schema response_format (servers without structured output)")
      ->group(g);
  cmd->add_option("--max-in-flight", l.max_in_flight, "HTTP requests at once")
      ->capture_default_str()
      ->envname("TALA_MAX_IN_FLIGHT")
      ->check(CLI::PositiveNumber)
      ->group(g);
  cmd->add_option("--rpm", l.requests_per_minute, "requests per minute limit (0: none)")
      ->capture_default_str()
      ->envname("TALA_RPM")
      ->check(CLI::NonNegativeNumber)
      ->group(g);
  cmd->add_option("--tpm", l.tokens_per_minute, "tokens per minute limit (0: none)")
      ->capture_default_str()
      ->envname("TALA_TPM")
      ->check(CLI::NonNegativeNumber)
      ->group(g);
  cmd->add_option("--timeout-ms", l.timeout_ms, "per-request timeout")
      ->capture_default_str()
      ->envname("TALA_TIMEOUT_MS")
      ->check(CLI::PositiveNumber)
      ->group(g);
  cmd->add_option("--max-retries", l.max_retries,
                  "retries per call on 429, 5xx, timeouts and dropped connections")
      ->capture_default_str()
      ->envname("TALA_MAX_RETRIES")
      ->check(CLI::NonNegativeNumber)
      ->group(g);
  if (for_metrics) {
    cmd->add_option("--batching", l.batching,
                    "batched (all chunks rated in one call) or per-chunk (one call per chunk, as "
                    "Ragas does)")
        ->capture_default_str()
        ->check(CLI::IsMember({"batched", "per-chunk"}))
        ->group(g);
    cmd->add_option("--layout", l.layout,
                    "how a row's claim and chunk verdicts are asked for: separate (a call for "
                    "the response's claims, the reference's and the chunks' ratings, each with "
                    "the chunks), row-first (the same calls, each starting with the row's data "
                    "so a provider's prompt cache serves it to all but the row's first call, "
                    "sent before the others), combined (one call returns all three: the chunks "
                    "sent once; its own prompt) or auto (per row, the one estimated to bill the "
                    "fewest input tokens, the provider's prompt cache included; tala eval "
                    "--dry-run shows all three). Row-first and combined were checked against "
                    "separate on the mock only")
        ->capture_default_str()
        ->check(CLI::IsMember({"auto", "separate", "row-first", "combined"}))
        ->group(g);
    cmd->add_option("--questions", l.questions, "questions generated for response_relevancy")
        ->capture_default_str()
        ->check(CLI::Range(1, 10))
        ->group(g);
  }
  cmd->add_option("--prompt-cache-key", l.prompt_cache_key,
                  "send OpenAI's prompt_cache_key (a row's calls share one, so they reach the "
                  "same prompt cache): auto (to api.openai.com only; compatible servers may "
                  "refuse fields they do not know), on or off")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->group(g);
  cmd->add_option("--cache", l.cache, "judge cache (SQLite file), or off")
      ->capture_default_str()
      ->envname("TALA_CACHE")
      ->group(g);
  cmd->add_option("--price-input", l.price_input,
                  "USD per million prompt tokens (overrides the built-in price table)")
      ->envname("TALA_PRICE_INPUT")
      ->check(CLI::NonNegativeNumber)
      ->group(g);
  cmd->add_option("--price-cached-input", l.price_cached_input,
                  "USD per million prompt tokens the provider's prompt cache served (OpenAI's "
                  "cached_tokens, Anthropic's cache reads; default: the table's, else as input)")
      ->envname("TALA_PRICE_CACHED_INPUT")
      ->check(CLI::NonNegativeNumber)
      ->group(g);
  cmd->add_option("--price-cache-write", l.price_cache_write,
                  "USD per million prompt tokens written to the provider's cache (Anthropic's "
                  "cache_creation_input_tokens; default: the table's, else as input)")
      ->envname("TALA_PRICE_CACHE_WRITE")
      ->check(CLI::NonNegativeNumber)
      ->group(g);
  cmd->add_option("--price-output", l.price_output, "USD per million completion tokens")
      ->envname("TALA_PRICE_OUTPUT")
      ->check(CLI::NonNegativeNumber)
      ->group(g);
}

}  // namespace tala::cli
