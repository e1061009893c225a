#include "judges/registry.h"

#include "judges/offline/offline_judge.h"
#include "judges/replay_judge.h"

namespace tala::judges {

const std::vector<JudgeEntry>& JudgeRegistry() {
  static const std::vector<JudgeEntry> kJudges = {
      {"offline",
       "the embedded default: no model, no network; deterministic lexical and WordNet-based "
       "verdicts",
       [] { return std::unique_ptr<Judge>(new offline::OfflineJudge()); }},
      {"replay", "verdicts written by hand in each row's \"verdicts\" field",
       [] { return std::unique_ptr<Judge>(new ReplayJudge()); }},
  };
  return kJudges;
}

Result<std::unique_ptr<Judge>> CreateJudge(const std::string& spec) {
  std::string known;
  for (const JudgeEntry& e : JudgeRegistry()) {
    if (spec == e.name) return e.make();
    known += (known.empty() ? "" : ", ") + std::string(e.name);
  }
  return NotFound("unknown judge \"" + spec + "\"; known judges: " + known);
}

}  // namespace tala::judges
