#include "judges/offline/structure_check.h"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "judges/offline/claim_support.h"
#include "judges/offline/clause_lexicon.h"
#include "judges/offline/clause_reading.h"
#include "judges/offline/wordnet.h"

namespace tala::judges::offline {

namespace {

const WordNet& Lexicon() { return WordNet::Get(); }

// The negations of an evidence segment that bear on the claim: "without X" counts only when the
// claim speaks of X.
int NegationsFor(const Segment& evidence, const KeySet& claim_keys) {
  int n = evidence.negations;
  for (size_t i = 0; i < evidence.words.size(); ++i) {
    if (evidence.words[i].token->folded != "without") continue;
    const Word* object = nullptr;
    for (size_t j = i + 1; j < evidence.words.size() && object == nullptr; ++j) {
      if (evidence.words[j].content) object = &evidence.words[j];
    }
    if (object == nullptr || claim_keys.count(object->key) == 0) --n;
  }
  return n;
}

// The claim's content words, scale words aside, that the evidence segment holds.
int Shared(const Segment& claim, const Segment& evidence) {
  KeySet seen;
  int n = 0;
  for (const Word& w : claim.words) {
    if (!w.content || w.key.empty() || w.polarity || !seen.insert(w.key).second) continue;
    if (evidence.HasKey(w.key)) ++n;
  }
  return n;
}

int Parity(int negations) { return negations % 2 == 0 ? 1 : -1; }

bool AreAntonyms(const Word& a, const Word& b) {
  for (const std::string* lemma : {&a.token->folded, &a.key}) {
    for (std::string_view x : Lexicon().Antonyms(*lemma)) {
      if (x == b.token->folded || x == b.key) return true;
    }
  }
  return false;
}

// -1 when the evidence segment says the opposite of a claim scale word (any pair disagreeing
// wins), +1 when it says the same, 0 when it has no word on the claim's scales.
int ScaleAgreement(const Segment& claim, const Segment& evidence, int evidence_negations) {
  int result = 0;
  for (const Word& c : claim.words) {
    if (!c.content || c.key.empty()) continue;
    for (const Word& e : evidence.words) {
      if (!e.content || e.key.empty()) continue;
      int claim_sign = 0, evidence_sign = 0;
      if (c.polarity && e.polarity && c.polarity->scale == e.polarity->scale) {
        claim_sign = c.polarity->sign;
        evidence_sign = e.polarity->sign;
      } else if (!c.number && !e.number && c.key != e.key && AreAntonyms(c, e)) {
        claim_sign = 1;
        evidence_sign = -1;
      } else {
        continue;
      }
      // A pair whose words both texts use ("lost property is kept") says nothing of polarity.
      if (c.key != e.key && (claim.HasKey(e.key) || evidence.HasKey(c.key))) continue;
      if (claim_sign * Parity(claim.negations) != evidence_sign * Parity(evidence_negations)) {
        return -1;
      }
      result = 1;
    }
  }
  return result;
}

std::string Quote(const std::string& evidence_name, const Segment& s) {
  return evidence_name + " says '" + s.Text() + "'";
}

// Check 1: polarity and negation.
StructureFinding CheckPolarity(const Segment& claim, const std::vector<Segment>& evidence,
                               const std::string& name) {
  size_t plain = 0;  // the claim's content words that are not scale words
  bool has_scale = false;
  for (const Word& w : claim.words) {
    if (w.content && !w.polarity) ++plain;
    has_scale = has_scale || w.polarity.has_value();
  }
  const KeySet claim_keys = ContentKeys(claim);
  int best_agree = 0, best_disagree = 0;
  const Segment* disagreeing = nullptr;
  for (const Segment& e : evidence) {
    int shared = Shared(claim, e);
    if (shared == 0) continue;
    const int negations = NegationsFor(e, claim_keys);
    int agreement = ScaleAgreement(claim, e, negations);
    if (agreement == 0 && shared >= 2 && 2 * shared >= static_cast<int>(plain)) {
      // No scale word in common: the same words under a different count of negations.
      agreement = Parity(claim.negations) == Parity(negations) ? 1 : -1;
    }
    if (agreement > 0) best_agree = std::max(best_agree, shared);
    if (agreement < 0 && shared > best_disagree) {
      best_disagree = shared;
      disagreeing = &e;
    }
  }
  if (disagreeing != nullptr && best_disagree > best_agree) {
    return {StructureFinding::Kind::kRefuted, "polarity: " + Quote(name, *disagreeing)};
  }
  if (best_agree > 0 && (claim.negations > 0 || has_scale)) {
    return {StructureFinding::Kind::kConsistent, ""};
  }
  return {};
}

// Units that name a different kind of quantity: "$12" is never "12%" or "12 kg". Counted nouns
// ("seats", "people") are too loose to tell two values apart.
bool StrongUnit(const std::string& u) {
  static const std::set<std::string> kUnits = {
      "$",  "€", "£",    "%",      "cent", "am",  "pm",   "kg",    "g",    "mg",
      "km", "m", "mile", "minute", "hour", "day", "week", "month", "year", "night"};
  return kUnits.count(u) > 0;
}

bool CompatibleUnits(const std::string& a, const std::string& b) {
  return a == b || a.empty() || b.empty() || !StrongUnit(a) || !StrongUnit(b);
}

bool HoldsNumber(const Segment& s, const Word& number) {
  const std::string& unit = number.token->unit;
  bool unit_present = false;  // another number here carries the claim's unit
  for (const Word& w : s.words) {
    unit_present = unit_present || (w.number && !unit.empty() && w.token->unit == unit);
  }
  for (const Word& w : s.words) {
    if (!w.number || w.token->value != number.token->value) continue;
    if (w.token->unit == unit || unit.empty() || !StrongUnit(unit)) return true;
    if (w.token->unit.empty() && !unit_present) return true;
  }
  return false;
}

// The run of name words around position `at` ("tomas berg"), as keys.
KeySet NameSpan(const Segment& s, size_t at) {
  KeySet out;
  size_t first = at, last = at;
  while (first > 0 && s.words[first - 1].name) --first;
  while (last + 1 < s.words.size() && s.words[last + 1].name) ++last;
  for (size_t i = first; i <= last; ++i) out.insert(s.words[i].key);
  return out;
}

// "EU" for "european union": a name given as the initials of a run of names in the segment.
bool HoldsInitials(const Segment& s, const std::string& initials) {
  for (size_t i = 0; i < s.words.size(); ++i) {
    std::string run;
    for (size_t j = i; j < s.words.size() && s.words[j].name; ++j) {
      run += s.words[j].token->folded[0];
      if (run == initials) return true;
    }
  }
  return false;
}

// How well an evidence segment places a claim word: the claim's other words (not `skip`) that
// it holds, each weighted by how few segments hold it, so a word every segment has ("year")
// cannot tie two segments that differ in the words that matter. Ties are broken on the words
// alone, numbers left out ("children take 500 mg twice a day" against "adults take 500 mg twice
// a day; children take 250 mg once a day": the children's segment).
struct Place {
  double score = 0;       // all the other words
  double word_score = 0;  // the other words that are not numbers
  int count = 0;          // how many, unweighted
  bool operator<(const Place& o) const {
    if (score != o.score) return score < o.score - 1e-9;
    return word_score < o.word_score - 1e-9;
  }
};

Place Placement(const Segment& claim, const Segment& e, const std::vector<Segment>& evidence,
                const KeySet& skip) {
  KeySet seen;
  Place place;
  for (const Word& w : claim.words) {
    if (!w.content || w.key.empty() || skip.count(w.key) > 0 || !seen.insert(w.key).second) {
      continue;
    }
    // A word on the same scale holds the same slot ("closed on Mondays" places "open on
    // Mondays"): its sign is the polarity check's business.
    auto holds = [&](const Segment& s) {
      return s.HasKey(w.key) || (w.polarity && s.HasScale(w.polarity->scale));
    };
    if (!holds(e)) continue;
    int segments_holding = 0;
    for (const Segment& s : evidence) segments_holding += holds(s) ? 1 : 0;
    const double weight = 1.0 / std::max(1, segments_holding);
    place.score += weight;
    if (!w.number) place.word_score += weight;
    ++place.count;
  }
  return place;
}

// Check 2: values bound to the words around them. A number or name of the claim must be in the
// evidence segment that best holds the claim's other words; when that segment has another value
// of the same kind instead, the claim is refuted. A plain word is refuted only across a swap:
// the segment has another word of the claim in its place, and the evidence has this one elsewhere
// ("allergic to aspirin, so given ibuprofen" against "allergic to ibuprofen, so given aspirin").
StructureFinding CheckBoundValues(const Segment& claim, const KeySet& claim_keys,
                                  const std::vector<Segment>& evidence, const std::string& name) {
  if (evidence.empty()) return {};
  const KeySet here = ContentKeys(claim);
  // A plain word can only be swapped with a word of another segment of the claim.
  const bool claim_elsewhere = claim_keys.size() > here.size();
  for (size_t at = 0; at < claim.words.size(); ++at) {
    const Word& f = claim.words[at];
    const bool plain = !f.number && !f.name;
    if (!f.content || f.key.empty() || f.polarity ||
        (plain && (!claim_elsewhere || f.token->stop || VerbLike(*f.token)))) {
      continue;
    }
    KeySet skip = f.name ? NameSpan(claim, at) : KeySet{f.key};
    if (f.number) {  // "5 to 7 days": the other end of a range does not place this one
      // Word `end` is the range's other end when it is a number and word `link` joins them.
      auto skip_range_end = [&](size_t end, size_t link) {
        std::string_view w = claim.words[link].token->folded;
        if (claim.words[end].number && (w == "to" || w == "and" || w == "or")) {
          skip.insert(claim.words[end].key);
        }
      };
      for (size_t end = at + 2; end < claim.words.size() && end <= at + 3; ++end) {
        skip_range_end(end, end - 1);
      }
      if (at >= 2) skip_range_end(at - 2, at - 1);
    }
    int others = 0;
    for (const std::string& k : here) others += skip.count(k) > 0 ? 0 : 1;
    std::vector<Place> places;
    for (const Segment& e : evidence) places.push_back(Placement(claim, e, evidence, skip));
    const Place best = *std::max_element(places.begin(), places.end());
    // The claim's other words must place it: two of them, or all when it has fewer.
    if (best.count < 2 && (best.count == 0 || best.count < others)) continue;
    // A name the segment lacks is not displaced by a name inside the segment (not its opening
    // word) when the claim's name is the subject of the same sentence, before the first verb of
    // its first segment: the sentence's subject carries through its later clauses
    // ("Michael Hutchence (1960-1997) was a musician, singer-songwriter and actor who co-founded
    // INXS"; "Valencia ... is the capital of ... and the third-largest city in Spain").
    auto carried = [&](size_t e_idx, size_t rival_at) {
      const Segment& e = evidence[e_idx];
      const int sentence = e.words.front().token->sentence;
      // The sentence's first segment, when it is not this one, must name it itself (not by a
      // pronoun, nor by another word of its name): the sentence is about it.
      size_t first = e_idx;
      while (first > 0 && !evidence[first - 1].words.empty() &&
             evidence[first - 1].words.back().token->sentence == sentence) {
        --first;
      }
      if (first == e_idx) return false;
      bool said = false;
      for (const Word& w : evidence[first].words) {
        std::string_view folded = w.token->folded;
        if (VerbLike(*w.token) || folded == "is" || folded == "was" || folded == "are" ||
            folded == "were") {
          break;  // past its subject ("She is also well known in Britain": not Britain)
        }
        said = said || (w.name && w.key == f.key);
      }
      if (!said) return false;
      // Not when the rival opens the segment: then it is the segment's own subject ("..., Bob
      // leads sales" does not say Alice does).
      for (size_t i = 0; i < rival_at; ++i) {
        if (e.words[i].content) return true;
      }
      return false;
    };
    const Segment* rival = nullptr;
    const Word* other = nullptr;
    bool held = false;
    for (size_t e_idx = 0; e_idx < evidence.size(); ++e_idx) {
      const Segment& e = evidence[e_idx];
      if (places[e_idx] < best) continue;
      if (f.number ? HoldsNumber(e, f)
          : f.name ? e.HasKey(f.key) || HoldsInitials(e, f.token->folded)
                   : e.HasKey(f.key)) {
        held = true;
        break;
      }
      for (size_t g_at = 0; g_at < e.words.size(); ++g_at) {
        const Word& g = e.words[g_at];
        if (rival != nullptr || !g.content || g.key.empty() || here.count(g.key) > 0) continue;
        bool same_kind = false;
        if (f.number) {
          same_kind = g.number && claim_keys.count(g.key) == 0 &&
                      CompatibleUnits(f.token->unit, g.token->unit);
        } else if (f.name) {
          same_kind = claim_keys.count(g.key) == 0 && g.name && !carried(e_idx, g_at);
        } else {
          bool elsewhere = false;
          for (const Segment& s : evidence) elsewhere = elsewhere || (&s != &e && s.HasKey(f.key));
          same_kind = !g.number && !g.name && claim_keys.count(g.key) > 0 && elsewhere;
        }
        if (same_kind) {
          rival = &e;
          other = &g;
        }
      }
    }
    if (held || rival == nullptr) continue;
    const char* kind = f.number ? "number" : f.name ? "name" : "binding";
    return {StructureFinding::Kind::kRefuted, std::string(kind) + ": " + Quote(name, *rival) +
                                                  ", with '" + other->shown +
                                                  "' where the claim has '" + f.shown + "'"};
  }
  return {};
}

// Who does the act at word `at`, and to whom: the content words on its left and on its right.
// A passive ("was acquired by X") has X as the agent and the rest as the patient. False when the
// roles cannot be read: a copula or a passive without "by" ("meals are included on flights").
bool Roles(const Segment& s, size_t at, KeySet& agent, KeySet& patient) {
  // A comparative ("is larger than") is no passive: its subject is the one compared.
  bool passive = false;
  for (size_t i = at > 2 ? at - 2 : 0; i < at && VerbLike(*s.words[at].token); ++i) {
    passive = passive || IsBeForm(s.words[i].token->folded);
  }
  size_t by = s.words.size();
  for (size_t i = at + 1; i < s.words.size() && passive; ++i) {
    if (s.words[i].token->folded == "by") {
      by = i;
      break;
    }
  }
  if (passive && by == s.words.size()) return false;
  for (const std::string& k : s.borrowed_subject) (passive ? patient : agent).insert(k);
  for (size_t i = 0; i < s.words.size(); ++i) {
    const Word& w = s.words[i];
    if (i == at || !w.content || w.key == s.words[at].key) continue;
    KeySet& side = !passive ? (i < at ? agent : patient) : (i > by ? agent : patient);
    w.AddKeysTo(side);
  }
  return true;
}

// A key of `a` that `b` holds and `not_in` does not.
bool CrossesInto(const KeySet& a, const KeySet& b, const KeySet& not_in, std::string* which) {
  for (const std::string& k : a) {
    if (b.count(k) > 0 && not_in.count(k) == 0) {
      *which = k;
      return true;
    }
  }
  return false;
}

// A frame word that reads the same both ways round ("A married B" is "B married A") or gives
// another name of the same thing ("A, also known as B"; "A (born B)").
bool EitherWay(std::string_view w) {
  static constexpr std::string_view kWords[] = {
      "married",   "marry",     "met",      "meet",     "partnered", "collaborated", "played",
      "drew",      "tied",      "faced",    "versus",   "vs",        "against",      "between",
      "together",  "alongside", "known",    "referred", "called",    "aka",          "alias",
      "nicknamed", "born",      "formerly", "née",      "nee",       "also"};
  return std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords);
}

// Check 3: who did what to whom, around a verb the claim and the evidence share.
StructureFinding CheckRoles(const Segment& claim, const std::vector<Segment>& evidence,
                            const std::string& name) {
  for (size_t i = 0; i < claim.words.size(); ++i) {
    const Word& p = claim.words[i];
    if (!p.content || p.number || p.name || p.key.empty()) continue;
    if (!VerbLike(*p.token) && !p.polarity) continue;
    if (EitherWay(p.token->folded)) continue;  // "A married B" is "B married A"
    // "got an email from": after a determiner the word is a noun, not the act.
    if (i > 0 && IsDeterminer(claim.words[i - 1].token->folded)) continue;
    KeySet claim_agent, claim_patient;
    if (!Roles(claim, i, claim_agent, claim_patient)) continue;
    if (claim_agent.empty() || claim_patient.empty()) continue;
    for (const Segment& e : evidence) {
      for (size_t j = 0; j < e.words.size(); ++j) {
        const Word& q = e.words[j];
        // The same word, or one that says the same on its scale ("larger" and "more").
        const bool same =
            q.key == p.key || (p.polarity && q.polarity && p.polarity->scale == q.polarity->scale &&
                               p.polarity->sign == q.polarity->sign);
        if (!q.content || !same) continue;
        KeySet agent, patient;
        std::string w, v;
        if (Roles(e, j, agent, patient) && CrossesInto(claim_agent, patient, agent, &w) &&
            CrossesInto(claim_patient, agent, patient, &v) && w != v) {
          return {StructureFinding::Kind::kRefuted, "roles: " + Quote(name, e)};
        }
        break;
      }
    }
  }
  return {};
}

// Check 4: a universal word the evidence never uses.
StructureFinding CheckExtension(const Segment& claim, const TextProfile& evidence,
                                const std::string& name) {
  for (const Word& w : claim.words) {
    if (IsUniversalWord(w.token->folded) && !evidence.HasFolded(w.token->folded)) {
      return {StructureFinding::Kind::kRefuted,
              "extension: '" + w.token->folded + "' is not in " + name};
    }
  }
  return {};
}

// Check 5: a word put in another's place. A plain word of the claim that the evidence never
// states (not its stem, base form or a synonym), after a preposition, where an evidence segment
// holds every other content word of the claim's segment (two or more) and has, after the same
// preposition, a plain word the claim never uses: "12 euros for children" against "12 euros for
// adults".
StructureFinding CheckSubstitution(const Segment& claim, const KeySet& claim_keys,
                                   const std::vector<Segment>& evidence,
                                   const TextProfile& evidence_text, const std::string& name) {
  static constexpr std::string_view kSlots[] = {"for", "to", "from", "with", "in",
                                                "on",  "at", "by",   "into", "of"};
  auto is_slot = [](std::string_view w) {
    return std::find(std::begin(kSlots), std::end(kSlots), w) != std::end(kSlots);
  };
  auto plain = [](const Word& w) {
    return w.content && !w.key.empty() && !w.number && !w.name && !w.polarity && !w.token->stop &&
           w.antecedents.empty();
  };
  // The word after the preposition at `p`, past determiners; null when there is none.
  auto object_of = [](const Segment& s, size_t p) -> const Word* {
    size_t i = p + 1;
    while (i < s.words.size() && IsDeterminer(s.words[i].token->folded)) ++i;
    return i < s.words.size() ? &s.words[i] : nullptr;
  };
  // Stated some way: the word, its base form, or a synonym of it or of its singular, in any
  // number ("grownups" for "adults").
  auto stated = [&](const ProfiledToken& t) {
    if (!MatchInEvidence(t, evidence_text).empty()) return true;
    std::vector<std::string> lemmas = {t.folded, t.stem};
    if (t.folded.size() > 3 && t.folded.back() == 's')
      lemmas.push_back(t.folded.substr(0, t.folded.size() - 1));
    for (const std::string& lemma : lemmas) {
      for (std::string_view syn : Lexicon().Synonyms(lemma)) {
        const std::string s(syn);
        if (evidence_text.HasFolded(s) || evidence_text.HasFolded(s + "s") ||
            evidence_text.HasStem(s)) {
          return true;
        }
      }
    }
    return false;
  };
  for (size_t p = 0; p + 1 < claim.words.size(); ++p) {
    const std::string& slot = claim.words[p].token->folded;
    const Word* f = object_of(claim, p);
    if (!is_slot(slot) || f == nullptr || !plain(*f) || VerbLike(*f->token) || stated(*f->token)) {
      continue;
    }
    int others = 0;
    for (const Word& w : claim.words) others += &w != f && w.content ? 1 : 0;
    if (others < 2) continue;
    for (const Segment& e : evidence) {
      bool holds_the_rest = true;
      for (const Word& w : claim.words) {
        if (&w == f || !w.content) continue;
        bool held = !w.key.empty() && e.HasKey(w.key);
        for (const std::string& a : w.antecedents) held = held || e.HasKey(a);
        holds_the_rest = holds_the_rest && held;
      }
      if (!holds_the_rest) continue;
      for (size_t q = 0; q + 1 < e.words.size(); ++q) {
        if (e.words[q].token->folded != slot) continue;
        const Word* g = object_of(e, q);
        if (g == nullptr || !plain(*g) || claim_keys.count(g->key) > 0) continue;
        return {StructureFinding::Kind::kRefuted, "substitution: " + Quote(name, e) + ", with '" +
                                                      g->shown + "' where the claim has '" +
                                                      f->shown + "'"};
      }
    }
  }
  return {};
}

// A sentence's words across its segments: a name's place is read in the whole sentence, since a
// parenthesis cuts "Arthur's Magazine (1844-1846) was published in Philadelphia" in three.
using SentenceWords = std::vector<const Word*>;

std::vector<SentenceWords> Sentences(const std::vector<Segment>& segments) {
  std::vector<SentenceWords> out;
  int current = -1;
  for (const Segment& s : segments) {
    for (const Word& w : s.words) {
      if (out.empty() || w.token->sentence != current) {
        out.emplace_back();
        current = w.token->sentence;
      }
      out.back().push_back(&w);
    }
  }
  return out;
}

// A run of name words, [first, last] in its sentence ("the oberoi group": oberoi, group).
struct NameRun {
  size_t first = 0, last = 0;
};

std::vector<NameRun> NameRuns(const SentenceWords& s) {
  std::vector<NameRun> runs;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!s[i]->name || s[i]->key.empty()) continue;
    if (!runs.empty() && runs.back().last + 1 == i) {
      runs.back().last = i;
    } else {
      runs.push_back({i, i});
    }
  }
  return runs;
}

// The run of `s` that names what run `r` of `claim` names: a name word with the same key.
std::optional<NameRun> FindRun(const SentenceWords& claim, NameRun r,
                               const std::vector<NameRun>& runs, const SentenceWords& s) {
  for (const NameRun& x : runs) {
    for (size_t i = x.first; i <= x.last; ++i) {
      for (size_t j = r.first; j <= r.last; ++j) {
        if (s[i]->key == claim[j]->key) return x;
      }
    }
  }
  return std::nullopt;
}

// The words strictly between two positions, articles left out: the frame that relates two names.
std::vector<std::string_view> Frame(const SentenceWords& s, size_t after, size_t before) {
  std::vector<std::string_view> out;
  for (size_t i = after + 1; i < before; ++i) {
    std::string_view w = s[i]->token->folded;
    if (w != "the" && w != "a" && w != "an") out.push_back(w);
  }
  return out;
}

// True when the claim's frame says what the evidence's does, maybe with words left out: its
// words, auxiliaries aside ("was"), are the evidence frame's in order ("was the president of"
// within "(1857-1930) was the 27th president of"), ending on the same word, and the evidence frame
// is not much longer (a frame across clauses relates nothing). "'s capital is" is not within "is
// the capital of", nor "was defeated by" within "defeated": a sentence turned round is no swap.
bool FrameWithin(const std::vector<std::string_view>& claim,
                 const std::vector<std::string_view>& evidence) {
  if (claim == evidence) return true;
  auto kept = [](const std::vector<std::string_view>& frame) {
    static constexpr std::string_view kAuxiliaries[] = {"is",   "was", "are",  "were", "be",
                                                        "been", "has", "have", "had"};
    std::vector<std::string_view> out;
    for (std::string_view w : frame) {
      if (std::find(std::begin(kAuxiliaries), std::end(kAuxiliaries), w) ==
          std::end(kAuxiliaries)) {
        out.push_back(w);
      }
    }
    return out;
  };
  const std::vector<std::string_view> c = kept(claim), e = kept(evidence);
  // The last word binds the second name ("president of"): it must be the same word.
  if (c.empty() || e.empty() || e.size() > c.size() + 10 || c.back() != e.back()) return false;
  size_t at = 0;
  for (std::string_view w : e) {
    if (at < c.size() && w == c[at]) ++at;
  }
  return at == c.size();
}

// Check 6: two names in each other's places. The claim's sentence has names A and B with words
// between them ("Delhi is a hotel company with its head office in the Oberoi Group"); an
// evidence sentence has B before A with the very same words between ("The Oberoi Group is a
// hotel company with its head office in Delhi"). Only the same frame counts, so a paraphrase
// that turns the sentence round ("France's capital is Paris", "Y was defeated by X") is no swap,
// and neither is a frame of no content word ("A and B") or of words that read both ways.
StructureFinding CheckSwappedNames(const SentenceWords& claim,
                                   const std::vector<SentenceWords>& evidence,
                                   const std::string& name) {
  const std::vector<NameRun> runs = NameRuns(claim);
  // The pairs of names worth looking for, each with its frame: worded, and not both ways.
  struct Pair {
    size_t a, b;
    std::vector<std::string_view> frame;
  };
  std::vector<Pair> pairs;
  for (size_t a = 0; a < runs.size(); ++a) {
    for (size_t b = a + 1; b < runs.size(); ++b) {
      bool worded = false, either_way = false;
      for (size_t i = runs[a].last + 1; i < runs[b].first; ++i) {
        const Word& w = *claim[i];
        worded = worded || (w.content && !w.number && !w.name);
        either_way = either_way || EitherWay(w.token->folded);
      }
      if (worded && !either_way) pairs.push_back({a, b, Frame(claim, runs[a].last, runs[b].first)});
    }
  }
  if (pairs.empty()) return {};
  for (const SentenceWords& e : evidence) {
    const std::vector<NameRun> e_runs = NameRuns(e);
    if (e_runs.size() < 2) continue;
    // Where each of the claim's names is in this sentence, found once for all the pairs.
    std::vector<std::optional<NameRun>> at(runs.size());
    for (size_t r = 0; r < runs.size(); ++r) at[r] = FindRun(claim, runs[r], e_runs, e);
    for (const Pair& p : pairs) {
      const std::optional<NameRun>&ea = at[p.a], &eb = at[p.b];
      if (!ea || !eb || eb->last >= ea->first) continue;  // not both, or in the claim's order
      if (!FrameWithin(p.frame, Frame(e, eb->last, ea->first))) continue;
      std::string quoted;
      for (const Word* w : e) quoted += (quoted.empty() ? "" : " ") + w->shown;
      return {StructureFinding::Kind::kRefuted,
              "roles: " + name + " says '" + quoted + "', with '" + claim[runs[p.a].first]->shown +
                  "' and '" + claim[runs[p.b].first]->shown + "' the other way round"};
    }
  }
  return {};
}

// Check 7: two stretches of a sentence in each other's places, the rest word for word. The
// claim's sentence is a stretch of an evidence sentence but for two spans A and B, each holding a
// content word, that stand in each other's places ("Wonder Woman as Lynda Carter" against
// "Lynda Carter as Wonder Woman"; "a newspaper of the October Revolution after the Soviet Union"
// against "... of the Soviet Union after the October Revolution"). Check 6 needs a worded frame
// between two names; here every other word must match, so a frame of function words ("as",
// "after", "from") is enough. Not a swap when the words between them read both ways ("A and B",
// "A, B", "A is B", "A married B"): then the order says nothing.
StructureFinding CheckSwappedSpans(const SentenceWords& claim,
                                   const std::vector<SentenceWords>& evidence,
                                   const std::string& name) {
  const size_t n = claim.size();
  if (n < 3) return {};
  // Each word's hash, so that most stretches are ruled out by their sums before any search:
  // a swap leaves the words between the first and the last difference the same multiset.
  auto hashes = [](const SentenceWords& s) {
    std::vector<uint64_t> out;
    out.reserve(s.size());
    for (const Word* w : s) out.push_back(std::hash<std::string_view>{}(w->token->folded));
    return out;
  };
  const std::vector<uint64_t> hc = hashes(claim);
  auto same = [](const Word* x, const Word* y) { return x->token->folded == y->token->folded; };
  auto has_content = [](const SentenceWords& s, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      if (s[i]->content || s[i]->name || s[i]->number) return true;
    }
    return false;
  };
  for (const SentenceWords& e : evidence) {
    if (e.size() < n) continue;
    const std::vector<uint64_t> he = hashes(e);
    for (size_t at = 0; at + n <= e.size(); ++at) {
      // The first and last places where the claim and this stretch of the sentence differ.
      size_t first = 0;
      while (first < n && hc[first] == he[at + first] && same(claim[first], e[at + first])) {
        ++first;
      }
      if (first == n) break;  // the claim is this stretch, word for word
      size_t last = n - 1;
      while (last > first && hc[last] == he[at + last] && same(claim[last], e[at + last])) --last;
      const size_t len = last - first + 1;
      uint64_t sum = 0, squares = 0;
      for (size_t k = first; k <= last; ++k) {
        sum += hc[k] - he[at + k];
        squares += hc[k] * hc[k] - he[at + k] * he[at + k];
      }
      if (sum != 0 || squares != 0) continue;  // not the same words: no swap of this stretch
      // claim[first..last] = A Y B and e's = B Y A, for some lengths a of A and b of B.
      for (size_t a = 1; a + 1 < len; ++a) {
        for (size_t b = 1; a + b < len; ++b) {
          bool swapped = true;
          for (size_t k = 0; k < a && swapped; ++k) {
            swapped = same(claim[first + k], e[at + first + len - a + k]);
          }
          for (size_t k = 0; k < b && swapped; ++k) {
            swapped = same(claim[first + len - b + k], e[at + first + k]);
          }
          for (size_t k = 0; k + a + b < len && swapped; ++k) {
            swapped = same(claim[first + a + k], e[at + first + b + k]);
          }
          if (!swapped) continue;
          const size_t a_end = first + a, b_begin = first + len - b;
          bool same_spans = a == b;
          for (size_t k = 0; k < a && same_spans; ++k) {
            same_spans = same(claim[first + k], claim[b_begin + k]);
          }
          if (same_spans || !has_content(claim, first, a_end) ||
              !has_content(claim, b_begin, last + 1)) {
            continue;
          }
          // Only "and", "or" or a copula between them ("the capital of France is Paris" is
          // "Paris is the capital of France"), or a word that reads both ways.
          static constexpr std::string_view kEitherOrder[] = {
              "and", "or", "nor", "&", "is", "are", "was", "were", "be", "the", "a", "an"};
          bool symmetric = true;
          for (size_t i = a_end; i < b_begin; ++i) {
            std::string_view w = claim[i]->token->folded;
            if (EitherWay(w)) {
              symmetric = true;
              break;
            }
            symmetric = symmetric && std::find(std::begin(kEitherOrder), std::end(kEitherOrder),
                                               w) != std::end(kEitherOrder);
          }
          if (symmetric) continue;
          auto span = [&](size_t from, size_t to) {
            std::string out;
            for (size_t i = from; i < to; ++i) out += (out.empty() ? "" : " ") + claim[i]->shown;
            return out;
          };
          std::string quoted;
          for (const Word* w : e) quoted += (quoted.empty() ? "" : " ") + w->shown;
          return {StructureFinding::Kind::kRefuted,
                  "roles: " + name + " says '" + quoted + "', with '" + span(first, a_end) +
                      "' and '" + span(b_begin, last + 1) + "' the other way round"};
        }
      }
    }
  }
  return {};
}

}  // namespace

StructureFinding CheckStructure(const TextProfile& claim, const TextProfile& evidence,
                                const char* evidence_name) {
  if (claim.tokens().empty() || evidence.tokens().empty()) return {};
  const std::string name = evidence_name;
  std::vector<Segment> claim_segments = ReadClauses(claim);
  std::vector<Segment> evidence_segments = ReadClauses(evidence);
  KeySet claim_keys;
  for (const Segment& s : claim_segments) {
    for (const Word& w : s.words) {
      if (w.content) w.AddKeysTo(claim_keys);
    }
  }
  StructureFinding consistent;
  for (const Segment& s : claim_segments) {
    if (s.ContentCount() < 2) continue;
    StructureFinding f = CheckPolarity(s, evidence_segments, name);
    if (f.kind == StructureFinding::Kind::kRefuted) return f;
    if (f.kind == StructureFinding::Kind::kConsistent) consistent = f;
    f = CheckBoundValues(s, claim_keys, evidence_segments, name);
    if (f.kind == StructureFinding::Kind::kRefuted) return f;
    f = CheckRoles(s, evidence_segments, name);
    if (f.kind == StructureFinding::Kind::kRefuted) return f;
    f = CheckExtension(s, evidence, name);
    if (f.kind == StructureFinding::Kind::kRefuted) return f;
    f = CheckSubstitution(s, claim_keys, evidence_segments, evidence, name);
    if (f.kind == StructureFinding::Kind::kRefuted) return f;
  }
  // Names are placed by sentence, across its segments.
  const std::vector<SentenceWords> evidence_sentences = Sentences(evidence_segments);
  for (const SentenceWords& sentence : Sentences(claim_segments)) {
    StructureFinding f = CheckSwappedNames(sentence, evidence_sentences, name);
    if (f.kind == StructureFinding::Kind::kRefuted) return f;
    f = CheckSwappedSpans(sentence, evidence_sentences, name);
    if (f.kind == StructureFinding::Kind::kRefuted) return f;
  }
  return consistent;
}

}  // namespace tala::judges::offline
