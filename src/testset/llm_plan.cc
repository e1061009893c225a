#include "testset/llm_plan.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "engine/llm_setup.h"
#include "judges/llm/prompts.h"
#include "runtime/clock.h"
#include "testset/pick.h"
#include "testset/question_groups.h"

namespace tala::testset {

namespace {

const char* const kPersonas[] = {"a first-time user", "a regular customer", "a support agent",
                                 "a domain expert", "someone in a hurry on a phone"};

// Largest remainders: `total` split in proportion to `weights`, each at least `floor` while the
// total allows.
std::vector<int64_t> Apportion(const std::vector<double>& weights, int64_t total, int64_t floor) {
  std::vector<int64_t> out(weights.size(), 0);
  if (weights.empty() || total <= 0) return out;
  if (floor > 0 && total >= floor * static_cast<int64_t>(weights.size())) {
    for (int64_t& n : out) n = floor;
    total -= floor * static_cast<int64_t>(weights.size());
  }
  double sum = 0;
  for (double w : weights) sum += w;
  std::vector<std::pair<double, size_t>> remainders;
  int64_t given = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    double exact = sum > 0 ? total * weights[i] / sum : 0;
    int64_t whole = static_cast<int64_t>(std::floor(exact));
    out[i] += whole;
    given += whole;
    remainders.emplace_back(exact - static_cast<double>(whole), i);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < total; ++k, ++given) ++out[remainders[k % remainders.size()].second];
  return out;
}

// The chunk that shares the most of `chunk`'s rare terms (held by 2 to a few chunks: names,
// figures, product terms), or `chunk` itself when none does.
size_t LinkedChunk(const ChunkIndex& index, size_t chunk) {
  const size_t most = std::max<size_t>(3, index.size() / 50);
  std::vector<std::pair<double, std::string>> rare;
  for (const std::string& t : index.TermsOfChunk(chunk)) {
    const size_t df = index.ChunksWith(t);
    // A term of this chunk alone links nothing; a common one means nothing.
    if (df >= 2 && df <= most) rare.emplace_back(index.Idf(t), t);
  }
  std::sort(rare.begin(), rare.end(), std::greater<>());
  if (rare.size() > 8) rare.resize(8);
  std::vector<std::string> query;
  for (const auto& [idf, t] : rare) query.push_back(t);
  std::sort(query.begin(), query.end());
  for (const auto& [other, score] : index.Search(query, 3)) {
    if (other != chunk) return other;
  }
  return chunk;
}

}  // namespace

std::vector<PlannedScenario> PlanScenarios(const Documents& docs, const ChunkIndex& index,
                                           const std::vector<std::string>& sources, int64_t count,
                                           uint64_t seed,
                                           const std::map<std::string, int64_t>& log_styles) {
  std::vector<PlannedScenario> out;
  if (count <= 0 || sources.empty()) return out;
  // Each document's chunks, in a seeded order.
  std::vector<std::vector<size_t>> chunks_of(sources.size());
  std::unordered_map<std::string, size_t> source_index;
  for (size_t s = 0; s < sources.size(); ++s) source_index.emplace(sources[s], s);
  for (size_t c = 0; c < docs.chunks.size(); ++c) {
    auto it = source_index.find(docs.chunks[c].source);
    if (it != source_index.end()) chunks_of[it->second].push_back(c);
  }
  for (auto& list : chunks_of) {
    std::stable_sort(list.begin(), list.end(), [&](size_t a, size_t b) {
      return SeededUniform(seed, docs.chunks[a].id) < SeededUniform(seed, docs.chunks[b].id);
    });
  }
  std::vector<double> weights;
  for (const auto& list : chunks_of) weights.push_back(static_cast<double>(list.size()));
  std::vector<int64_t> shares;
  int64_t usable = 0;
  for (const auto& list : chunks_of) usable += list.empty() ? 0 : 1;
  if (count < usable) {
    // Fewer items than documents: a seeded draw of documents, weighted by their chunks.
    std::vector<std::pair<double, size_t>> keys;
    for (size_t s = 0; s < sources.size(); ++s) {
      if (chunks_of[s].empty()) continue;
      double u = std::max(1e-12, SeededUniform(seed, sources[s]));
      keys.emplace_back(std::log(u) / weights[s], s);
    }
    std::sort(keys.begin(), keys.end(), std::greater<>());
    shares.assign(sources.size(), 0);
    for (int64_t k = 0; k < count; ++k) shares[keys[static_cast<size_t>(k)].second] = 1;
  } else {
    shares = Apportion(weights, count, 1);
  }
  // Shapes: the log's shares, or the defaults.
  double typo = kDefaultTypoShare, vague = kDefaultVagueShare, multi = kDefaultMultiPartShare;
  int64_t logged = 0;
  for (const auto& [style, n] : log_styles) logged += n;
  if (logged > 0) {
    auto share = [&](const char* style) {
      auto it = log_styles.find(style);
      return it == log_styles.end() ? 0.0 : static_cast<double>(it->second) / logged;
    };
    typo = share("typo");
    vague = share("vague");
    multi = share("multi-part");
  }
  for (size_t s = 0; s < sources.size(); ++s) {
    for (int64_t n = 0; n < shares[s]; ++n) {
      // More items than chunks: a chunk may serve twice (as another type or style).
      size_t c = chunks_of[s][static_cast<size_t>(n) % chunks_of[s].size()];
      PlannedScenario p;
      p.scenario.chunks = {c};
      const std::string key = docs.chunks[c].id + "#" + std::to_string(n);
      if (SeededUniform(seed + 1, key) < kMultiHopShare) {
        size_t other = LinkedChunk(index, c);
        if (other != c) p.scenario.chunks.push_back(other);
      }
      double u = SeededUniform(seed + 2, key);
      p.typo = u < typo;
      p.scenario.style = p.typo || u >= typo + vague + multi ? "plain"
                         : u < typo + vague                  ? "vague"
                                                             : "multi-part";
      const size_t personas = sizeof kPersonas / sizeof kPersonas[0];
      p.scenario.persona = kPersonas[static_cast<size_t>(SeededUniform(seed + 3, key) * personas)];
      double l = SeededUniform(seed + 4, key);
      p.scenario.length = p.scenario.style == "vague"        ? "short"
                          : p.scenario.style == "multi-part" ? (l < 0.5 ? "medium" : "long")
                                                             : (l < 0.4   ? "short"
                                                                : l < 0.8 ? "medium"
                                                                          : "long");
      out.push_back(std::move(p));
    }
  }
  return out;
}

std::string InjectTypo(const std::string& question, uint64_t seed) {
  // The words of five ASCII letters or more: a swap inside one reads as a slip of the finger.
  std::vector<std::pair<size_t, size_t>> words;  // begin, length
  for (size_t i = 0; i < question.size();) {
    size_t j = i;
    while (j < question.size() && std::isalpha(static_cast<unsigned char>(question[j]))) ++j;
    if (j - i >= 5) words.emplace_back(i, j - i);
    i = j == i ? i + 1 : j;
  }
  if (words.empty()) return question;
  const auto [begin, length] =
      words[static_cast<size_t>(SeededUniform(seed, question) * words.size())];
  // Two inner letters, not the first or the last: the word stays recognisable.
  size_t at = begin + 1 + static_cast<size_t>(SeededUniform(seed + 1, question) * (length - 3));
  std::string out = question;
  if (out[at] == out[at + 1]) {
    out.erase(at, 1);  // a doubled letter typed once
  } else {
    std::swap(out[at], out[at + 1]);
  }
  return out;
}

Result<LlmJudge> OpenLlmJudge(const TestsetOptions& options) {
  LlmJudge judge;
  // The judge's sampling seed is the pick's: the same seed asks the same questions.
  LlmOptions llm = options.llm;
  llm.seed = static_cast<int64_t>(options.seed);
  llm.estimate_only = options.dry_run;
  TALA_ASSIGN_OR_RETURN(judge.setup, SetUpLlm(options.judge, llm, &judge.warnings));
  TALA_ASSIGN_OR_RETURN(
      judge.runner, runtime::JudgeRunner::Create(judge.setup.backends, judge.setup.runtime,
                                                 judge.setup.cache.get(), runtime::SystemClock()));
  return judge;
}

Result<LlmRun> RunLlmItems(const TestsetOptions& options, LlmJudge& judge,
                           std::vector<std::unique_ptr<LlmItem>> items) {
  LlmRun run;
  run.warnings = judge.warnings;
  const LlmSetup& setup = judge.setup;
  runtime::JudgeRunner* runner = judge.runner.get();
  TestsetCalls& calls = run.calls;
  calls.used = true;
  calls.judge = setup.judge_name;
  runtime::Accounting accounting;
  if (options.dry_run) {
    accounting = judge.estimate;
    calls.estimated = true;
    const judges::llm::Prompt& reference = judges::llm::GetPrompt("testset_reference");
    for (const auto& item : items) {
      const judges::llm::ModelCall first = item->FirstCall();
      const int64_t prompt = EstimatePromptTokens(first, setup);
      if (first.kind == judges::llm::CallKind::kTestsetQuestion) {
        // The question (~30 tokens) and its quotes; then its reference call, whose prompt holds
        // the scenario's passages and about as many others (not known before the question is).
        AddEstimatedCall(first, prompt, 90, true, *runner, setup, accounting);
        judges::llm::ModelCall next;
        next.kind = judges::llm::CallKind::kTestsetReference;
        next.prompt_id = reference.id();
        const int64_t system = static_cast<int64_t>(reference.system.size()) / 4;
        const int64_t passages =
            prompt - static_cast<int64_t>(first.messages[0].content.size()) / 4;
        AddEstimatedCall(next, system + 2 * passages + 30, 160, false, *runner, setup, accounting);
      } else {
        AddEstimatedCall(first, prompt, 160, true, *runner, setup, accounting);
      }
    }
    // Whether a provider's prompt cache could serve the calls' shared start (issue 56), as
    // tala eval's dry run says it.
    if (auto note = ProviderCacheNote(accounting, setup)) run.warnings.push_back(*note);
  } else {
    std::unordered_map<const judges::llm::CallSource*, size_t> position;
    for (size_t i = 0; i < items.size(); ++i) position.emplace(items[i].get(), i);
    std::vector<std::unique_ptr<LlmItem>> done(items.size());
    size_t next = 0;
    auto tick = [&](const Progress& p) {
      if (!options.progress) return;
      Progress q = p;
      q.rows_total = static_cast<int64_t>(items.size());
      options.progress(q);
    };
    Status s = runner->RunSources(
        [&]() -> std::unique_ptr<judges::llm::CallSource> {
          if (next == items.size()) return nullptr;
          return std::move(items[next++]);
        },
        [&](std::unique_ptr<judges::llm::CallSource> source) {
          size_t at = position.at(source.get());
          done[at].reset(static_cast<LlmItem*>(source.release()));
          return OkStatus();
        },
        options.stop, tick);
    if (!s.ok()) return s;
    items = std::move(done);
    accounting = runner->accounting();
  }
  const runtime::CallCounts& t = accounting.total;
  calls.calls = t.calls;
  calls.cache_hits = t.cache_hits;
  calls.requests = t.requests;
  calls.repairs = t.repairs;
  calls.retries = t.retries;
  calls.failed = t.failed;
  calls.prompt_tokens = t.prompt_tokens;
  calls.completion_tokens = t.completion_tokens;
  if (setup.price) calls.cost_usd = runtime::Cost(t, *setup.price);
  for (const auto& [name, c] : accounting.by_prompt) calls.by_prompt[name] = c.calls + c.cache_hits;
  if (int64_t n = accounting.usage_clamped; n > 0) {
    run.warnings.push_back("the judge server reported impossible token usage in " +
                           std::to_string(n) + " replies; it was clamped");
  }
  run.items = std::move(items);
  return run;
}

}  // namespace tala::testset
