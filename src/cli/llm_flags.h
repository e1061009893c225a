#pragma once
// The LLM judge's flags (server, limits, retries, cache, prices), in the "LLM judge" group of a
// command's help. `seed`: where --seed goes (a string: an integer or "none"); nullptr for a
// command whose --seed means something else. `for_metrics`: also the flags only metrics use
// (batching, questions), and --embeddings described for the metrics rather than for the
// golden set's intents and chunks.

#include <CLI/CLI.hpp>
#include <string>

#include "tala/evaluate.h"

namespace tala::cli {

void AddLlmOptions(CLI::App* cmd, LlmOptions& llm, std::string* seed, bool for_metrics);

}  // namespace tala::cli
