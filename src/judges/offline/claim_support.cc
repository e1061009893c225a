#include "judges/offline/claim_support.h"

#include <algorithm>

#include "judges/offline/durations.h"
#include "judges/offline/structure_check.h"

namespace tala::judges::offline {

namespace {
// Penalties for hard refutations: a wrong number or an absent name is strong evidence of a
// hallucination even when every other word matches.
constexpr double kMissingNumber = 0.25;
constexpr double kMissingName = 0.4;
constexpr double kAntonym = 0.4;
constexpr double kUnmatchedNegation = 0.5;
// The evidence states otherwise (structure_check.h): the opposite polarity, another value in the
// claim's slot, swapped roles, an unsupported universal.
constexpr double kStructureRefuted = 0.15;
// How much it counts that a claim's words are found in one place, and the share a neighbouring
// sentence earns.
constexpr double kTogetherWeight = 0.5;
constexpr double kNeighbourShare = 0.5;

double Weight(const ProfiledToken& t) { return t.number ? 2.0 : t.capitalised ? 1.5 : 1.0; }

bool EvidenceHasWord(const TextProfile& evidence, std::string_view folded) {
  return evidence.HasFolded(folded);
}
}  // namespace

std::string_view MatchInEvidence(const ProfiledToken& t, const TextProfile& evidence) {
  if (evidence.HasStem(t.stem)) return t.stem;
  if (evidence.HasFolded(t.folded)) return t.stem;
  if (t.number) return {};
  const WordNet& wordnet = WordNet::Get();
  for (std::string_view b : wordnet.BaseForms(t.folded)) {
    if (evidence.HasFolded(b)) return b;
  }
  for (std::string_view syn : wordnet.Synonyms(t.folded)) {
    if (evidence.HasFolded(syn)) return syn;
  }
  return {};
}

SupportVerdict ClaimSupport::Check(const TextProfile& claim, const TextProfile& question,
                                   const TextProfile& evidence, GivenWords given_policy,
                                   const char* evidence_name) const {
  struct Item {
    const ProfiledToken* token;
    bool given;
    double weight;
    std::string_view matched;  // evidence stem or folded word; empty when unmatched
  };
  std::vector<Item> items;
  std::vector<int> item_of(claim.tokens().size(), -1);
  for (size_t i = 0; i < claim.tokens().size(); ++i) {
    const ProfiledToken& t = claim.tokens()[i];
    if (t.stop || t.negation) continue;
    bool given = question.HasStem(t.stem);
    item_of[i] = static_cast<int>(items.size());
    items.push_back({&t, given, Weight(t), MatchInEvidence(t, evidence)});
  }
  // A span of time the evidence states in another unit ("a month" for "30 days") is stated.
  const std::vector<Duration> spans = Durations(evidence);
  for (const Duration& d : spans.empty() ? std::vector<Duration>{} : Durations(claim)) {
    const int q = d.quantity_token >= 0 ? item_of[d.quantity_token] : -1;
    const int u = d.unit_token >= 0 ? item_of[d.unit_token] : -1;
    const bool unmatched =
        (q >= 0 && items[q].matched.empty()) || (u >= 0 && items[u].matched.empty());
    if (!unmatched) continue;
    for (const Duration& e : spans) {
      if (!SameSpan(d, e)) continue;
      const ProfiledToken& said =
          evidence.tokens()[e.unit_token >= 0 ? e.unit_token : e.quantity_token];
      if (q >= 0) items[q].matched = said.stem;
      if (u >= 0) items[u].matched = said.stem;
      break;
    }
  }
  SupportVerdict v;
  if (items.empty()) {
    v.score = 1.0;
    v.supported = true;
    v.reason = "no content words to check";
    return v;
  }
  // Coverage of the claim's content words (numbers and names weigh more). Words the question
  // gives are premises: against a reference they count as matched, against the context they
  // must be found like any other word.
  double total = 0, found = 0;
  for (const Item& it : items) {
    total += it.weight;
    bool matched = !it.matched.empty() || (it.given && given_policy == GivenWords::kCountAsMatch);
    if (matched) found += it.weight;
  }
  // Subject-predicate check: a claim's words must be stated together, not gathered from
  // different sentences. `together` is the weighted share of the found words that lie in the
  // best sentence, neighbouring sentences counting half (a fact may straddle a boundary).
  double best = 0;
  int anchor = 0;  // the sentence that states most of the claim
  for (int s = 0; s < evidence.sentence_count() && found > 0; ++s) {
    double here = 0;
    for (const Item& it : items) {
      if (it.matched.empty()) continue;
      if (it.matched != it.token->stem || evidence.HasStemIn(it.matched, s, s)) {
        here += it.weight;  // synonyms and base forms match by word: not localised
      } else if (evidence.HasStemIn(it.matched, s - 1, s - 1) ||
                 evidence.HasStemIn(it.matched, s + 1, s + 1)) {
        here += kNeighbourShare * it.weight;
      }
    }
    if (here > best) {
      best = here;
      anchor = s;
    }
  }
  double together = found > 0 ? std::min(1.0, best / found) : 1.0;
  double score = (found / total) * (1.0 - kTogetherWeight + kTogetherWeight * together);

  std::string why;
  for (const Item& it : items) {
    if (!it.matched.empty() || it.given) continue;
    const ProfiledToken& t = *it.token;
    if (t.number) {
      score *= kMissingNumber;
      if (why.empty()) why = "'" + t.folded + "' not in " + evidence_name;
    } else if (t.capitalised) {
      score *= kMissingName;
      if (why.empty()) why = "'" + t.folded + "' not in " + evidence_name;
    } else if (WordList antonyms = wordnet().Antonyms(t.folded); !antonyms.empty()) {
      for (std::string_view a : antonyms) {
        if (EvidenceHasWord(evidence, a)) {
          score *= kAntonym;
          if (why.empty()) {
            why = "'" + t.folded + "' contradicts '" + std::string(a) + "' in " + evidence_name;
          }
          break;
        }
      }
    }
  }
  StructureFinding structure;
  if (structure_checks_) structure = CheckStructure(claim, evidence, evidence_name);
  if (structure.kind == StructureFinding::Kind::kRefuted) {
    score *= kStructureRefuted;
    why = structure.reason;
  }
  bool claim_negated = false;
  for (const ProfiledToken& t : claim.tokens()) {
    claim_negated = claim_negated || (t.negation && !question.HasFolded(t.folded));
  }
  // A negation the evidence explains ("does not open" against "is closed") is no penalty. One
  // it does not lowers the claim whether or not the structure checks refuted it already, so a
  // refuted claim and its negation do not tie (FEVER's negated claims 0.86 -> 0.97, the ARES
  // sources' negation edits up, HaluEval unchanged: bench/judge_sources.py).
  if (claim_negated && !evidence.HasNegationIn(anchor, anchor) &&
      structure.kind != StructureFinding::Kind::kConsistent) {
    score *= kUnmatchedNegation;
    if (why.empty()) why = "negation not in " + std::string(evidence_name);
  }
  v.score = std::clamp(score, 0.0, 1.0);
  v.supported = v.score >= kSupportThreshold;
  if (why.empty()) {
    size_t unmatched = 0;
    for (const Item& it : items) unmatched += it.matched.empty() && !it.given ? 1 : 0;
    why = unmatched == 0 ? "every content word found in " + std::string(evidence_name)
                         : std::to_string(unmatched) + " content words not in " + evidence_name;
  }
  char score_text[16];
  std::snprintf(score_text, sizeof score_text, " (%.2f)", v.score);
  v.reason = (v.supported ? "supported: " : "unsupported: ") + why + score_text;
  return v;
}

}  // namespace tala::judges::offline
