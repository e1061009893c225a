#pragma once
// ClauseReading: a text read as clause segments for the offline judge's structure checks
// (structure_check.h): each word's key (WordNet base form or stem, a number's value and unit),
// polarity scale, whether it is content, a number or a name; each segment's negations; pronouns
// resolved to the subject of the segment before; subjects carried into a segment that opens on
// its verb ("... and went public in 2004"). The rules are written in structure_check.h.
// Words point into the TextProfile's tokens: a reading must not outlive its profile.
// Lexicon lookups are memoised per thread: safe to call from any thread.

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "judges/offline/clause_lexicon.h"
#include "judges/offline/text_profile.h"

namespace tala::judges::offline {

using KeySet = std::set<std::string>;

// One word of a segment, as the checks compare it.
struct Word {
  const ProfiledToken* token = nullptr;
  // Base form or stem; a number's value and unit ("12$"). A pronoun has its antecedent
  // segment's content words instead (any of them may be what it stands for).
  std::string key;
  std::vector<std::string> antecedents;
  std::string shown;  // how a quote shows it: "$12", or "her (alice)" for a pronoun
  std::optional<Polarity> polarity;
  bool content = false;  // counts when segments are aligned
  bool number = false;
  bool name = false;  // a proper name: capitalised inside the sentence, or unknown to WordNet

  bool Is(std::string_view k) const {
    return key == k || std::find(antecedents.begin(), antecedents.end(), k) != antecedents.end();
  }
  void AddKeysTo(KeySet& out) const {
    if (!key.empty()) out.insert(key);
    out.insert(antecedents.begin(), antecedents.end());
  }
};

// A clause segment: a sentence cut at , ; : ( ) and before and/but/while/... (text_profile.h).
struct Segment {
  std::vector<Word> words;
  int negations = 0;
  // "... and went public": the subject of the segment before, as its content words up to its
  // first verb or "is".
  KeySet borrowed_subject;

  bool HasKey(std::string_view key) const {
    if (borrowed_subject.count(std::string(key)) > 0) return true;
    for (const Word& w : words) {
      if (w.content && w.Is(key)) return true;
    }
    return false;
  }
  bool HasScale(int scale) const {
    for (const Word& w : words) {
      if (w.polarity && w.polarity->scale == scale) return true;
    }
    return false;
  }
  std::string Text() const {
    std::string out;
    for (const Word& w : words) out += (out.empty() ? "" : " ") + w.shown;
    return out;
  }
  size_t ContentCount() const {
    size_t n = 0;
    for (const Word& w : words) n += w.content ? 1 : 0;
    return n;
  }
};

// The text's segments, in order.
std::vector<Segment> ReadClauses(const TextProfile& profile);

// The content words' keys of a segment, pronouns' antecedents included.
KeySet ContentKeys(const Segment& s);

// True when the word can be a verb in WordNet, inflected or not ("supplies", "reported").
bool VerbLike(const ProfiledToken& t);

// the, a, an, its, their, his, our, this, that, every, each, ...
bool IsDeterminer(std::string_view w);

}  // namespace tala::judges::offline
