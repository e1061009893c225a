#include "judges/registry.h"

#include "judges/offline/offline_judge.h"
#include "judges/replay_judge.h"

namespace tala::judges {

const std::vector<JudgeEntry>& JudgeRegistry() {
  static const std::vector<JudgeEntry> kJudges = {
      {"offline",
       "the embedded default: no network, no key; deterministic verdicts from words, WordNet "
       "and a small sentence encoder (`make deps` fetches it); `tala metrics` says how far to "
       "trust each metric",
       [](const OfflineBlend& blend) {
         return std::unique_ptr<Judge>(new offline::OfflineJudge(blend));
       }},
      {"replay", "verdicts written by hand in each row's \"verdicts\" field",
       [](const OfflineBlend&) { return std::unique_ptr<Judge>(new ReplayJudge()); }},
      // LLM judges are driven by the runtime (concurrency, cache, retries), not made here.
      {"openai:MODEL",
       "an OpenAI Chat Completions model, or any compatible server (vLLM, Ollama, llama.cpp, "
       "LM Studio) via --base-url; key from OPENAI_API_KEY",
       nullptr},
      {"anthropic:MODEL", "an Anthropic Messages API model; key from ANTHROPIC_API_KEY", nullptr},
  };
  return kJudges;
}

Result<std::unique_ptr<Judge>> CreateJudge(const std::string& spec, const OfflineBlend& blend) {
  std::string known;
  for (const JudgeEntry& e : JudgeRegistry()) {
    if (spec == e.name && e.make != nullptr) return e.make(blend);
    known += (known.empty() ? "" : ", ") + std::string(e.name);
  }
  return NotFound("unknown judge \"" + spec + "\"; known judges: " + known);
}

}  // namespace tala::judges
