#pragma once
// The LLM path of `tala testset`: which synthetic items to write (scenarios), and running every
// item's calls through the judge runtime (cache, retries, rate limits, accounting), or estimating
// them for --dry-run.
//
// Scenarios go to the documents no logged question touches, each document getting a share of
// the synthetic items in proportion to its chunks (at least one while there are items enough),
// distinct chunks within a document, all seeded. About a quarter are multi-hop: the chunk and
// another that shares its rarest terms (the names and figures two passages have in common).
// Question shapes follow the log's measured shares (or 20% typo, 15% vague, 15% multi-part
// without a log); vague and multi-part are asked for in the question's scenario, typos are
// added afterwards without a call (InjectTypo).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/llm_setup.h"
#include "runtime/accounting.h"
#include "runtime/judge_runner.h"
#include "tala/testset.h"
#include "testset/documents.h"
#include "testset/llm_items.h"
#include "testset/reference_draft.h"

namespace tala::testset {

// The default shares of question shapes for synthetic items when there is no log to measure.
inline constexpr double kDefaultTypoShare = 0.20, kDefaultVagueShare = 0.15,
                        kDefaultMultiPartShare = 0.15;
// The share of synthetic items asked to be multi-hop (when a linked chunk exists).
inline constexpr double kMultiHopShare = 0.25;

struct PlannedScenario {
  Scenario scenario;
  bool typo = false;  // a typo is injected into the question once written
};

// `count` scenarios over the chunks of `sources` (documents, in the order read). `log_styles`:
// the log's question shapes (plain, typo, vague, multi-part); empty for the defaults.
std::vector<PlannedScenario> PlanScenarios(const Documents& docs, const ChunkIndex& index,
                                           const std::vector<std::string>& sources, int64_t count,
                                           uint64_t seed,
                                           const std::map<std::string, int64_t>& log_styles);

// One deterministic typo (two neighbouring letters of a longer word swapped), keyed by `seed`.
std::string InjectTypo(const std::string& question, uint64_t seed);

// The LLM judge of a run, opened once: the embeddings that group intents and rank chunks
// (judge_embedder.h) and the items' calls go through the same runtime, so the report counts
// them all.
struct LlmJudge {
  LlmSetup setup;
  std::unique_ptr<runtime::JudgeRunner> runner;
  runtime::Accounting estimate;  // --dry-run: the calls estimated so far
  std::vector<std::string> warnings;
};

// kInvalidArgument for a bad judge spec or a hosted API without its key; kIoError when the
// cache cannot be opened. Calls nothing. The judge's sampling seed is the pick's.
Result<LlmJudge> OpenLlmJudge(const TestsetOptions& options);

struct LlmRun {
  std::vector<std::unique_ptr<LlmItem>> items;  // in the order given, each done
  TestsetCalls calls;
  std::vector<std::string> warnings;
};

// Runs every item's calls through `judge`; with options.dry_run, only estimates them (items are
// returned untouched). The calls counted are all the judge's, the embeddings' included. The
// runtime's fatal errors (401, unreachable) and kCancelled when stopped.
Result<LlmRun> RunLlmItems(const TestsetOptions& options, LlmJudge& judge,
                           std::vector<std::unique_ptr<LlmItem>> items);

}  // namespace tala::testset
