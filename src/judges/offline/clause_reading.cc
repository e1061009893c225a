#include "judges/offline/clause_reading.h"

#include <algorithm>
#include <unordered_map>

#include "judges/offline/wordnet.h"

namespace tala::judges::offline {

namespace {

const WordNet& Lexicon() { return WordNet::Get(); }

std::string KeyOf(const ProfiledToken& t) {
  // "$12" and "12" (as in "under 12") are different values in one sentence.
  if (!t.value.empty()) return t.value + t.unit;
  if (WordList bases = Lexicon().BaseForms(t.folded); !bases.empty()) return std::string(bases[0]);
  return t.stem;
}

// "refused to sign", "failed to pay": a negation carried by a verb.
bool IsNegatingVerb(std::string_view w) {
  static constexpr std::string_view kVerbs[] = {"refuse", "refused", "refuses", "declined",
                                                "fail",   "failed",  "fails",   "neglected"};
  return std::find(std::begin(kVerbs), std::end(kVerbs), w) != std::end(kVerbs);
}

// Segment openers after which a verb with no subject of its own takes the previous one's.
bool BorrowsSubject(std::string_view opener) {
  return opener == "and" || opener == "but" || opener == "so" || opener == "yet";
}

bool IsDeterminerOrPronoun(std::string_view w) {
  static constexpr std::string_view kWords[] = {"the",   "a",     "an",  "its", "their", "his",
                                                "her",   "he",    "she", "it",  "they",  "this",
                                                "these", "those", "we",  "i",   "you",   "our"};
  return std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords);
}

// True when the word can be a verb in WordNet, inflected or not ("supplies", "reported").
bool ComputeVerbLike(const std::string& w) {
  const WordNet& wn = Lexicon();
  if (wn.IsVerb(w)) return true;
  for (std::string_view b : wn.BaseForms(w)) {
    if (wn.IsVerb(b)) return true;
  }
  auto ends = [&](std::string_view suffix) {
    return w.size() > suffix.size() + 2 &&
           std::string_view(w).substr(w.size() - suffix.size()) == suffix;
  };
  auto cut = [&](size_t n, std::string_view add = "") {
    return wn.IsVerb(w.substr(0, w.size() - n) + std::string(add));
  };
  if (ends("ies") || ends("ied")) return cut(3, "y");
  if (ends("ing")) return cut(3) || cut(3, "e");
  if (ends("ed")) return cut(2) || cut(1);
  if (ends("es")) return cut(2) || cut(1);
  if (ends("s")) return cut(1);
  return false;
}

// What the lexicons say of a word, looked up once per word and thread: the same words recur in
// every chunk and claim, and each fact costs a few hash lookups.
struct WordFacts {
  std::string key;
  std::optional<Polarity> polarity;
  bool known = false;      // WordNet has it
  bool proper = false;     // WordNet capitalises it: a proper name
  bool verb_like = false;  // it can be a verb
  bool inflected_verb = false;
};

const WordFacts& FactsOf(const ProfiledToken& t) {
  thread_local std::unordered_map<std::string, WordFacts> memo;
  if (auto it = memo.find(t.folded); it != memo.end()) return it->second;
  if (memo.size() > 200000) memo.clear();  // bounded, whatever the corpus
  WordFacts f;
  f.key = KeyOf(t);
  f.polarity = PolarityOf(t.folded, t.stem);
  if (!f.polarity && f.key != t.stem) f.polarity = PolarityOf(f.key, f.key);
  f.known = Lexicon().Knows(t.folded);
  f.proper = Lexicon().IsProperName(t.folded);
  f.verb_like = ComputeVerbLike(t.folded);
  const std::string& w = t.folded;
  f.inflected_verb = f.verb_like && (!Lexicon().BaseForms(w).empty() || w.ends_with("s") ||
                                     w.ends_with("ed") || w.ends_with("ing"));
  return memo.emplace(t.folded, std::move(f)).first->second;
}

}  // namespace

bool VerbLike(const ProfiledToken& t) { return FactsOf(t).verb_like; }

bool IsDeterminer(std::string_view w) {
  static constexpr std::string_view kWords[] = {
      "the",  "a",    "an",   "its",   "their", "his",   "our",  "my",
      "your", "this", "that", "these", "those", "every", "each", "another"};
  return std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords);
}

namespace {

// A verb form that ends a subject: inflected ("covers", "began", "directed", "leading").
bool InflectedVerb(const ProfiledToken& t) { return FactsOf(t).inflected_verb; }

void ReadWord(const ProfiledToken& t, Word& w) {
  const bool currency = t.unit == "$" || t.unit == "€" || t.unit == "£";
  w.shown = currency ? t.unit + t.folded : t.folded;
  if (IsPersonalPronoun(t.folded)) return;  // resolved once the segments are read
  w.number = !t.value.empty();
  if (w.number) {
    w.key = KeyOf(t);
    w.content = true;
    return;
  }
  const WordFacts& facts = FactsOf(t);
  w.key = facts.key;
  w.polarity = facts.polarity;
  // "May" inside a sentence is the month, not the modal.
  const bool month = t.folded == "may" && t.capitalised;
  w.content = !t.stop || w.polarity.has_value() || month;
  // A capital at a sentence's start says little: there a word is a name when WordNet does not
  // know it or knows it as a name ("Tomas", "Paris"; not "Bikes", "Refunds").
  w.name = month || (w.content && !t.stop &&
                     (t.capitalised || (t.raw_capitalised && (!facts.known || facts.proper))));
}

// An auxiliary or modal: where a subject ends ("the plan does not", "members may").
bool IsAuxiliary(std::string_view w) {
  static constexpr std::string_view kWords[] = {"can",   "will",  "may", "must",  "should",
                                                "would", "could", "has", "have",  "had",
                                                "do",    "does",  "did", "shall", "might"};
  return IsBeForm(w) || std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords);
}

// The subject of a segment: its content words up to the first auxiliary or inflected verb
// ("the basic plan covers ..." -> basic, plan). Empty when the segment opens with its verb.
KeySet SubjectOf(const Segment& s, std::string* shown) {
  KeySet out;
  for (const Word& w : s.words) {
    if (IsAuxiliary(w.token->folded)) break;
    if (w.content && !out.empty() && InflectedVerb(*w.token)) break;
    if (w.content && !w.number && !w.polarity && !w.key.empty()) {
      if (out.empty() && shown != nullptr) *shown = w.token->folded;
      out.insert(w.key);
    }
  }
  return out;
}

}  // namespace

std::vector<Segment> ReadClauses(const TextProfile& profile) {
  std::vector<Segment> segments(static_cast<size_t>(profile.segment_count()));
  std::vector<int> sentence_of(segments.size(), -1);
  const auto& tokens = profile.tokens();
  for (size_t i = 0; i < tokens.size(); ++i) {
    const ProfiledToken& t = tokens[i];
    Segment& seg = segments[t.segment];
    sentence_of[t.segment] = t.sentence;
    Word w;
    w.token = &t;
    if (t.negation || t.folded == "non") {
      w.shown = t.folded;
      // "without an internet connection" negates its object only: it counts as a clause
      // negation when the claim's words include that object (see NegationsFor).
      ++seg.negations;
    } else {
      ReadWord(t, w);
      if (IsNegatingVerb(t.folded) && i + 1 < tokens.size() && tokens[i + 1].folded == "to") {
        ++seg.negations;
      }
    }
    seg.words.push_back(std::move(w));
  }
  // A pronoun stands for the subject of the latest segment that has its own ("Bob reports to
  // her" after "Alice manages the office": alice).
  KeySet antecedent;
  std::string antecedent_shown;
  for (size_t i = 0; i < segments.size(); ++i) {
    Segment& seg = segments[i];
    for (Word& w : seg.words) {
      if (!IsPersonalPronoun(w.token->folded) || antecedent.empty()) continue;
      w.antecedents.assign(antecedent.begin(), antecedent.end());
      w.content = true;
      w.shown += " (" + antecedent_shown + ")";
    }
    if (seg.words.empty() || BorrowsSubject(seg.words[0].token->folded)) continue;
    std::string shown;
    KeySet subject = SubjectOf(seg, &shown);
    if (!subject.empty()) {
      antecedent = std::move(subject);
      antecedent_shown = shown;
    }
  }
  // "Lumen was founded in 1998 and went public in 2004": the second segment's subject.
  for (size_t i = 1; i < segments.size(); ++i) {
    const auto& words = segments[i].words;
    if (words.size() < 2 || sentence_of[i] != sentence_of[i - 1]) continue;
    if (!BorrowsSubject(words[0].token->folded)) {
      // "Tarnow has 100,000 people, more than twice ...": a segment cut at a comma that opens
      // with a comparison continues the subject before it.
      const Word& opener = words[0];
      if (opener.content && opener.polarity && !opener.number && !opener.name &&
          !VerbLike(*opener.token)) {
        segments[i].borrowed_subject = SubjectOf(segments[i - 1], nullptr);
      }
      continue;
    }
    const Word* first = nullptr;
    bool determiner = false;
    for (size_t j = 1; j < words.size() && first == nullptr; ++j) {
      if (words[j].content) first = &words[j];
      determiner = determiner || IsDeterminerOrPronoun(words[j].token->folded);
    }
    if (first == nullptr || first->number || first->name || determiner) continue;
    segments[i].borrowed_subject = SubjectOf(segments[i - 1], nullptr);
  }
  // "not released until 1978" says it was released in 1978.
  for (Segment& seg : segments) {
    bool negated = false;
    for (const Word& w : seg.words) {
      negated = negated || w.token->negation;
      if (negated && w.token->folded == "until" && seg.negations > 0) {
        --seg.negations;
        break;
      }
    }
  }
  return segments;
}

KeySet ContentKeys(const Segment& s) {
  KeySet out;
  for (const Word& w : s.words) {
    if (w.content) w.AddKeysTo(out);
  }
  return out;
}

}  // namespace tala::judges::offline
