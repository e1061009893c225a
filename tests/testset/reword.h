#pragma once
// Test data for the meaning join of tala testset (meaning_merge.h): a question reworded the way
// the words cannot follow, its names kept. Pass Reword to MakeIntentLog (intent_log.h).

#include <algorithm>
#include <cctype>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/text/stopwords.h"
#include "judges/offline/wordnet.h"
#include "support/temp_dir.h"
#include "testset/intent_log.h"

namespace tala::testing {

// `question` reworded: each lower-case word of four letters or more that is not a stop word
// becomes a WordNet synonym of it (one of its first senses', picked by `rng`), so the wording
// shares little but its names with the question. Empty when no word has a synonym.
inline std::string Reword(const std::string& question, std::mt19937_64& rng) {
  const judges::offline::WordNet& wordnet = judges::offline::WordNet::Get();
  std::string out;
  bool changed = false;
  for (size_t at = 0; at <= question.size();) {
    size_t end = at;
    bool lower = true;
    while (end < question.size() && std::isalpha(static_cast<unsigned char>(question[end]))) {
      lower = lower && std::islower(static_cast<unsigned char>(question[end]));
      ++end;
    }
    std::string word = question.substr(at, end - at);
    if (lower && word.size() >= 4 && !text::IsStopWord(word)) {
      std::vector<std::string_view> synonyms = wordnet.Synonyms(word);
      if (!synonyms.empty()) {
        word = std::string(synonyms[rng() % std::min<size_t>(2, synonyms.size())]);
        std::replace(word.begin(), word.end(), '_', ' ');
        changed = true;
      }
    }
    out += word;
    if (end < question.size()) out += question[end];
    at = end + 1;
  }
  return changed ? out : std::string();
}

// The share of phrasings reworded in the meaning join's test log.
inline constexpr double kRewordedShare = 0.3;

// The intent log of intents [first, last) (intent_log.h, its seed) with kRewordedShare of the
// phrasings reworded: the log `bench_testset meaning` reports and the meaning join's tests read.
inline IntentLog MakeRewordedLog(const TempDir& dir, size_t first, size_t last) {
  return MakeIntentLog(dir, first, last, 20231204, kRewordedShare, Reword);
}

}  // namespace tala::testing
