#include "judges/offline/answer_relevance.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/text/sentences.h"
#include "judges/offline/claim_support.h"
#include "judges/offline/clause_lexicon.h"
#include "judges/offline/wordnet.h"

namespace tala::judges::offline {

namespace {

enum class AnswerType { kAny, kTime, kQuantity, kPlace, kPerson, kReason, kYesNo };

bool In(std::initializer_list<std::string_view> words, std::string_view w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

bool IsCopula(std::string_view w) { return In({"is", "was", "are", "were"}, w); }

bool IsWhWord(std::string_view w) {
  return In({"what", "which", "who", "whom", "whose", "when", "where", "why", "how"}, w);
}

// Where the question's first wh-word is ("who", "which", "what"...), or its size when it has none.
size_t WhWordAt(const std::vector<ProfiledToken>& q) {
  for (size_t i = 0; i < q.size(); ++i) {
    if (IsWhWord(q[i].folded)) return i;
  }
  return q.size();
}

// Where the question's own wh-word is: the first, unless that one stands inside the sentence (a
// relative: "...starred a nominee, who received a star in what year?") and another closes the
// question, among its last five words.
size_t QuestionWordAt(const std::vector<ProfiledToken>& q) {
  const size_t first = WhWordAt(q);
  if (first <= 1 || first == q.size()) return first;  // "Who...?", "In what year...?", none
  for (size_t i = std::max(first + 1, q.size() > 5 ? q.size() - 5 : 0); i < q.size(); ++i) {
    if (IsWhWord(q[i].folded)) return i;
  }
  return first;
}

// What the question phrase from word `from` on asks for, and where that phrase ends.
AnswerType TypeOf(const std::vector<ProfiledToken>& q, size_t from, size_t* phrase_end) {
  *phrase_end = 0;
  for (size_t i = from; i < q.size(); ++i) {
    const std::string& w = q[i].folded;
    const std::string next = i + 1 < q.size() ? q[i + 1].folded : "";
    if (w == "when") return *phrase_end = i + 1, AnswerType::kTime;
    if (w == "where") return *phrase_end = i + 1, AnswerType::kPlace;
    if (w == "who" || w == "whom" || w == "whose") return *phrase_end = i + 1, AnswerType::kPerson;
    if (w == "why") return *phrase_end = i + 1, AnswerType::kReason;
    if (w == "how") {
      if (In({"many", "much", "long", "old", "far", "often", "tall", "big", "large", "high",
              "heavy", "fast", "soon", "late", "early"},
             next)) {
        *phrase_end = i + 2;
        return next == "soon" || next == "late" || next == "early" ? AnswerType::kTime
                                                                   : AnswerType::kQuantity;
      }
      return *phrase_end = i + 1, AnswerType::kAny;
    }
    if (w == "what" || w == "which") {
      // The noun asked about: the next word, or past "is/was the" ("what was the population").
      size_t head = i + 1;
      if (head < q.size() && IsCopula(q[head].folded)) {
        ++head;
        if (head < q.size() && In({"the", "a", "an", "its", "their"}, q[head].folded)) ++head;
      }
      std::string noun = head < q.size() ? q[head].folded : "";
      // "... a town with a population of what?": the noun before "of" when the question ends.
      if (noun.empty() && i >= 2 && q[i - 1].folded == "of") noun = q[i - 2].folded;
      if (In({"time", "year", "date", "day", "month", "hour"}, noun)) {
        return *phrase_end = head + 1, AnswerType::kTime;
      }
      if (In({"percentage", "share",      "number", "amount", "price",       "cost",
              "capacity",   "population", "length", "height", "area",        "size",
              "age",        "distance",   "depth",  "width",  "weight",      "total",
              "budget",     "revenue",    "salary", "speed",  "temperature", "duration"},
             noun)) {
        return *phrase_end = head + 1, AnswerType::kQuantity;
      }
      return *phrase_end = i + 1, AnswerType::kAny;
    }
  }
  // "Is the trail suitable...?", "Can I bring...?": answered by yes, no or the predicate.
  if (!q.empty() && In({"is", "are", "was", "were", "do", "does", "did", "can", "could", "will",
                        "would", "should", "has", "have", "may", "must"},
                       q[0].folded)) {
    *phrase_end = 1;
    return AnswerType::kYesNo;
  }
  return AnswerType::kAny;
}

bool IsMonthOrDay(std::string_view w) {
  return In({"january",    "february",  "march",    "april",     "may",      "june",    "july",
             "august",     "september", "october",  "november",  "december", "monday",  "tuesday",
             "wednesday",  "thursday",  "friday",   "saturday",  "sunday",   "mondays", "tuesdays",
             "wednesdays", "thursdays", "fridays",  "saturdays", "sundays",  "today",   "tomorrow",
             "yesterday",  "morning",   "noon",     "midnight",  "evening",  "night",   "weekend",
             "weekends",   "weekday",   "weekdays", "spring",    "summer",   "autumn",  "winter",
             "mid",        "daily",     "weekly"},
            w);
}

// A capitalised word that names a time ("March", "Sunday") or, by WordNet's first sense, a thing
// of `other` kind: "London" does not answer "who", "Shakespeare" does not answer "where".
bool NamesATimeOr(NounKind other, const ProfiledToken& t) {
  if (IsMonthOrDay(t.folded)) return true;
  const NounKind kind = WordNet::Get().FirstNounKind(t.folded);
  return kind == other || kind == NounKind::kTime;
}

// True when a response word, new to the question, is the kind of thing asked for.
bool Answers(AnswerType type, const ProfiledToken& t) {
  const bool value = !t.value.empty();
  switch (type) {
    case AnswerType::kTime:
      return value || IsMonthOrDay(t.folded);
    case AnswerType::kQuantity:
      return value || In({"every", "half", "dozen", "free", "twice", "once"}, t.folded);
    case AnswerType::kPlace:
      return (t.raw_capitalised && !t.stop && !NamesATimeOr(NounKind::kPerson, t)) ||
             In({"floor",    "desk",     "street", "road",     "office",  "platform",
                 "entrance", "room",     "hall",   "building", "station", "next",
                 "near",     "behind",   "beside", "inside",   "outside", "above",
                 "below",    "opposite", "online", "website"},
                t.folded);
    case AnswerType::kPerson:
      return (t.raw_capitalised && !t.stop && !NamesATimeOr(NounKind::kPlace, t)) ||
             t.folded.find('@') != std::string::npos ||
             In({"team", "staff", "office", "department", "manager", "visitors", "members",
                 "anyone", "everyone", "people", "residents", "students", "customers"},
                t.folded);
    case AnswerType::kReason:
      return In({"because", "since", "due", "caused", "cause", "reason", "so", "to", "as"},
                t.folded);
    case AnswerType::kYesNo:
      return In({"yes", "no", "not", "only"}, t.folded) || t.negation;
    case AnswerType::kAny:
      return false;
  }
  return false;
}

// The response states this question word: as the claim matcher finds it in evidence (stem,
// base form, synonym), or as the base form of a response word ("began" for "begin").
bool States(const ProfiledToken& q, const TextProfile& response) {
  if (!MatchInEvidence(q, response).empty()) return true;
  const WordNet& wn = WordNet::Get();
  for (const ProfiledToken& r : response.tokens()) {
    for (std::string_view b : wn.BaseForms(r.folded)) {
      if (b == q.folded || b == q.stem) return true;
    }
  }
  return false;
}

constexpr size_t kShortAnswerWords = 8;
// The weighted share of the focus that counts as all of it.
constexpr double kFullCoverage = 0.6;
constexpr double kCoverageWeight = 0.6;
constexpr double kTypeWeight = 0.4;

// A fragment ("1889", "Omar Haddad", "At desk B in the arrivals hall") is all answer; a clause
// ("Children travel free on all trams") has to be about the question too. Without a parser: a
// clause has an auxiliary, or runs past four words without opening on a preposition.
bool IsFragment(const std::vector<ProfiledToken>& r) {
  if (r.empty() || r.size() > kShortAnswerWords) return false;
  // A name or a title, however long, is one thing named: every content word capitalised
  // ("Anthony Hopkins and Jessica Lange", "Institute of Muslim Minority Affairs").
  bool named = true;
  for (const ProfiledToken& t : r) named = named && (t.stop || t.raw_capitalised || t.number);
  if (r.size() > 4 && !named &&
      !In({"at", "in", "on", "by", "from", "to", "for", "near", "with", "after", "before", "since",
           "until", "every", "about", "around", "under", "over", "between"},
          r[0].folded)) {
    return false;
  }
  for (const ProfiledToken& t : r) {
    if (In({"is", "are", "was", "were", "has", "have", "had", "can", "will", "must", "may",
            "should", "would", "could", "does", "do", "did"},
           t.folded)) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string AskedFor(const TextProfile& question) {
  const auto& q = question.tokens();
  const size_t start = QuestionWordAt(q);
  std::string phrase;
  for (size_t i = start, n = 0; i < q.size() && n < 4; ++i, ++n) {
    if (i > start && (q[i].segment != q[start].segment ||
                      In({"is",   "are", "was", "were", "did",   "does",  "do",     "has",
                          "have", "had", "can", "will", "would", "could", "should", "of",
                          "in",   "on",  "for", "that", "to",    "from",  "by",     "with"},
                         q[i].folded))) {
      break;
    }
    phrase += (phrase.empty() ? "" : " ") + q[i].folded;
  }
  return phrase;
}

namespace {
// Whether the question asks "what" or "which" of a kind of thing named by a content word ("what
// band's", "which British company"; not "which of the following" or "what is").
bool AsksForAThing(const std::vector<ProfiledToken>& q) {
  for (size_t i = 0; i + 1 < q.size(); ++i) {
    if (q[i].folded != "what" && q[i].folded != "which") continue;
    size_t next = i + 1;  // past a year: "which 1946 film"
    while (next + 1 < q.size() && !q[next].value.empty() && q[next].unit.empty()) ++next;
    return !q[next].stop && q[next].value.empty();
  }
  return false;
}

// What kind of thing a "what" or "which" question names as its answer, by the noun of its phrase
// and WordNet's first sense of it: "which Oklahoma politician" a person, "what county" a place;
// kNone when the phrase names no noun ("what is", "which of"). Names in the phrase are skipped
// ("which Irish-American hitman"), and so are adjectives before the noun ("which former member"),
// years and the modifiers of a list ("what American stage, film, and television actor").
NounKind AskedNounKind(const std::vector<ProfiledToken>& q, size_t wh) {
  if (wh >= q.size() || (q[wh].folded != "what" && q[wh].folded != "which")) {
    return NounKind::kNone;
  }
  const WordNet& wn = WordNet::Get();
  NounKind kind = NounKind::kNone;
  for (size_t i = wh + 1; i < q.size() && i <= wh + 8; ++i) {
    const ProfiledToken& t = q[i];
    if (!t.value.empty() || t.folded == "and" || t.folded == "or") {
      continue;
    }
    if (t.stop) break;
    if (t.raw_capitalised) continue;
    const NounKind k = wn.FirstNounKind(t.folded);
    if (k == NounKind::kNone) {
      if (kind != NounKind::kNone) break;  // a verb after the noun: "what band released"
      continue;
    }
    kind = k;
  }
  return kind;
}

// Whether a short answer names another kind of thing than the question's noun asks for: a place
// or a thing for "which politician" ("Lawrence County", "England"), a person for "what city"
// ("Band of Brothers"). By the answer's last word: a common noun, or the answer's only word when
// it is a name, since a person's surname may be a place's name ("Jack London").
bool NamesAnotherKind(NounKind asked, const std::vector<ProfiledToken>& r) {
  if (asked != NounKind::kPerson && asked != NounKind::kPlace) return false;
  const ProfiledToken* head = nullptr;
  int words = 0;
  for (const ProfiledToken& t : r) {
    if (t.stop || !t.value.empty()) continue;
    head = &t;
    ++words;
  }
  if (head == nullptr) return false;
  const WordNet& wn = WordNet::Get();
  const bool common = !wn.IsProperName(head->folded);
  const NounKind kind = wn.FirstNounKind(head->folded);
  if (asked == NounKind::kPerson) {
    return (kind == NounKind::kPlace || kind == NounKind::kArtifact || kind == NounKind::kTime) &&
           (common || words == 1);
  }
  return kind == NounKind::kPerson && common;
}

// Where a question that asks to pick one of the things it names splits them (its size when it
// offers none): an "or" after its wh-word ("Who was born first, A or B?", "Which of the
// following ...: A or B?"; an "or" before it is part of a name: "The Royal Commission ... or
// Woodward Royal Commission was initiated by which country?"), or "between A and B" in a
// question that asks "who" or "which" ("Between A and B, who is older?"; "what is the distance
// between A and B" asks for something else).
size_t OptionsSplitAt(const std::vector<ProfiledToken>& q) {
  const size_t wh = WhWordAt(q);
  if (wh == q.size()) return q.size();
  for (size_t i = wh + 1; i < q.size(); ++i) {
    // A capitalised "Or" is part of a name ("Imi Sde-Or"), "or not" asks yes or no.
    if (q[i].folded == "or" && !q[i].raw_capitalised &&
        !(i + 1 < q.size() && q[i + 1].folded == "not")) {
      return i;
    }
  }
  if (q[wh].folded != "who" && q[wh].folded != "which") return q.size();
  for (size_t i = 0; i < q.size(); ++i) {
    if (q[i].folded != "between") continue;
    for (size_t j = i + 2; j < q.size(); ++j) {
      if (q[j].folded == "and") return j;
    }
  }
  return q.size();
}

// Whether the response states one of the two options around the split at `at` and not the other:
// each option is the (up to) two content words next to the split, in its clause ("Ada Lovelace"
// or "Charles Babbage"; "the day pass" or "the single ticket").
bool StatesOneOption(const std::vector<ProfiledToken>& q, size_t at, const TextProfile& response) {
  auto states_side = [&](bool before) {
    if (before ? at == 0 : at + 1 >= q.size()) return false;
    const int segment = q[before ? at - 1 : at + 1].segment;
    int taken = 0;
    bool stated = false;
    for (size_t k = 1; taken < 2 && (before ? k <= at : at + k < q.size()); ++k) {
      const ProfiledToken& t = q[before ? at - k : at + k];
      if (t.segment != segment) break;
      if (t.stop || !t.value.empty()) continue;
      ++taken;
      stated = stated || response.HasStem(t.stem);
    }
    return stated;
  };
  return states_side(true) != states_side(false);
}

// Whether the response states every content word of the clause that holds the question's
// wh-word, other than the options themselves ("born first" of "Who was born first, A or B?").
bool StatesTheComparison(const std::vector<ProfiledToken>& q, size_t split,
                         const TextProfile& response) {
  const size_t wh = WhWordAt(q);
  bool any = false;
  for (size_t i = wh + 1; i < q.size(); ++i) {
    const ProfiledToken& t = q[i];
    if (t.segment != q[wh].segment || i == split) continue;
    if (t.stop || !t.value.empty() || t.raw_capitalised) continue;  // the options are names
    any = true;
    if (!States(t, response)) return false;
  }
  return any;
}

// AnswerReading::form. A sentence picks one of the options a question offers when it names one
// and not the other; a fragment when it names one: at least half of its content words, and one at
// least, are the question's ("Jacob \"Jack\" Kevorkian" for "... Christy Canyon or Jack
// Kevorkian?"); a fragment that names none ("1948") does not answer such a question.
int FormOf(const TextProfile& question, const TextProfile& response, AnswerType type,
           bool fragment) {
  const auto& r = response.tokens();
  const bool opens_yes_no = r[0].folded == "yes" || r[0].folded == "no";
  const bool bare_yes_no = opens_yes_no && (fragment || r.size() <= 3);
  const size_t split = OptionsSplitAt(question.tokens());
  if (split < question.tokens().size()) {
    if (bare_yes_no) return -1;
    // A sentence picks an option when it names one and not the other, and says what the question
    // compares them by ("Charles Babbage was born first, in 1791."); a sentence about one of
    // them ("Ada Lovelace (born 1815) was a mathematician.") does not.
    if (!fragment) {
      return StatesOneOption(question.tokens(), split, response) &&
                     StatesTheComparison(question.tokens(), split, response)
                 ? 1
                 : 0;
    }
    int content = 0, asked = 0;
    for (const ProfiledToken& t : r) {
      if (t.stop) continue;
      ++content;
      asked += question.HasStem(t.stem) ? 1 : 0;
    }
    if (content == 0) return 0;
    if (asked == 0) return -1;
    return 2 * asked >= content ? 1 : 0;
  }
  if (type == AnswerType::kYesNo) return opens_yes_no ? 1 : 0;
  return bare_yes_no ? -1 : 0;
}

// AnswerReading::slot. Measured on bench/relevance_sets.py's answer_sentence pairs (fit half):
// six words either side at 0.7 per word separated the answering sentence best; the whole
// question (a sentence restating the question's premise) did no better than a coin.
double SlotShare(const std::vector<ProfiledToken>& q, size_t wh, const TextProfile& response) {
  constexpr size_t kReach = 6;
  constexpr double kFalloff = 0.7;
  // A question with no wh-word ("Do children pay fares?") has no gap: its predicate follows the
  // opening verb.
  if (wh >= q.size()) wh = 0;
  double total = 0, stated = 0;
  std::set<std::string> seen;
  const size_t from = wh > kReach ? wh - kReach : 0;
  for (size_t i = from; i < q.size() && i <= wh + kReach; ++i) {
    const ProfiledToken& t = q[i];
    if (t.stop || IsWhWord(t.folded) || !seen.insert(t.stem).second) continue;
    const double weight = std::pow(kFalloff, static_cast<double>(i > wh ? i - wh : wh - i));
    total += weight;
    if (States(t, response)) stated += weight;
  }
  return total == 0 ? 0.0 : stated / total;
}

// AnswerReading::defines_subject. The subject is the words of the response's first clause
// segment before its first copula (within its first 16 words, so that a parenthesis may stand
// between: "Allison Beth \"Allie\" Goertz (born March 2, 1991) is an American musician."); it
// opens with a capital, and at least half of its content words are the question's.
bool DefinesTheQuestionsSubject(const TextProfile& question, const TextProfile& response) {
  const auto& q = question.tokens();
  const auto& r = response.tokens();
  // "What is X?", "Who was the Y?": a definition of a name is what such a question asks for.
  const size_t wh = QuestionWordAt(q);
  if (wh + 1 < q.size() && (q[wh].folded == "what" || q[wh].folded == "who") &&
      IsCopula(q[wh + 1].folded)) {
    size_t next = wh + 2;
    while (next < q.size() && In({"the", "a", "an"}, q[next].folded)) ++next;
    if (next < q.size() && q[next].raw_capitalised) return false;
  }
  size_t start = 0;
  if (!r.empty() && r[0].folded == "the") start = 1;
  // A name, or a name that opens with a year ("The 2013 Liqui Moly Bathurst 12 Hour was...").
  if (start >= r.size() || !(r[start].raw_capitalised || r[start].number)) return false;
  constexpr size_t kSubjectReach = 16;
  size_t copula = start;
  while (copula < r.size() && copula < kSubjectReach && r[copula].sentence == r[start].sentence &&
         !IsCopula(r[copula].folded)) {
    ++copula;
  }
  if (copula + 1 >= r.size() || copula >= kSubjectReach || !IsCopula(r[copula].folded) ||
      !In({"a", "an", "the", "one"}, r[copula + 1].folded)) {
    return false;
  }
  int content = 0, asked = 0, named = 0;
  for (size_t i = start; i < copula && r[i].segment == r[start].segment; ++i) {
    if (r[i].stop || r[i].folded.empty()) continue;  // the tokenizer leaves "" for a curly quote
    ++content;
    named += r[i].raw_capitalised ? 1 : 0;
    asked += question.HasStem(r[i].stem) || question.HasFolded(r[i].folded) ? 1 : 0;
  }
  return named > 0 && 2 * asked >= content;
}

// The question's focus: its content words after its first wh-phrase, each stem once. That is
// the phrase that asks but for a relative ("..., who received a star in what year?" asks for a
// year, about what follows "who").
std::vector<const ProfiledToken*> QuestionFocus(const std::vector<ProfiledToken>& q) {
  const size_t asked_at = QuestionWordAt(q);
  size_t first_phrase_end = 0;
  TypeOf(q, asked_at == WhWordAt(q) ? asked_at : 0, &first_phrase_end);
  std::vector<const ProfiledToken*> focus;
  std::set<std::string> seen;
  for (size_t i = first_phrase_end; i < q.size(); ++i) {
    const ProfiledToken& t = q[i];
    if (t.stop || t.negation || !seen.insert(t.stem).second) continue;
    focus.push_back(&t);
  }
  return focus;
}

}  // namespace

AnswerReading ReadAnswer(const TextProfile& question, const TextProfile& response) {
  AnswerReading reading;
  const auto& q = question.tokens();
  const auto& r = response.tokens();
  if (r.empty()) return reading;
  // The kind of answer is read from the question's own phrase (QuestionWordAt); the focus from
  // its first wh-phrase on (QuestionFocus).
  size_t phrase_end = 0;
  const size_t asked_at = QuestionWordAt(q);
  const AnswerType type = TypeOf(q, asked_at, &phrase_end);
  // The first focus word is what the question is about ("how much sugar", "which vaccines") and
  // weighs double.
  const std::vector<const ProfiledToken*> focus = QuestionFocus(q);
  double total = 0, stated = 0;
  size_t missing = 0;
  for (size_t i = 0; i < focus.size(); ++i) {
    const double weight = i == 0 ? 2.0 : 1.0;
    total += weight;
    if (States(*focus[i], response)) {
      stated += weight;
    } else {
      ++missing;
    }
  }
  // "It opens at 9am": a pronoun opening a response that states some of the focus stands for
  // one more of it (the subject it replaces).
  bool pronoun_opens = false;
  for (size_t i = 0; i < r.size() && i < 3; ++i) {
    pronoun_opens = pronoun_opens || IsPersonalPronoun(r[i].folded);
  }
  if (pronoun_opens && stated > 0 && missing > 0) stated += 1.0;
  // Stating most of the focus is addressing it: answers rarely repeat every word.
  const double coverage = total == 0 ? 1.0 : std::min(1.0, stated / total / kFullCoverage);
  reading.coverage = coverage;
  reading.typed_question = type != AnswerType::kAny;
  reading.fragment = IsFragment(r);
  double content = 0, fresh = 0;
  for (const ProfiledToken& t : r) {
    if (t.stop) continue;
    content += 1;
    fresh += question.HasStem(t.stem) ? 0 : 1;
  }
  reading.novelty = content == 0 ? 0.0 : fresh / content;
  reading.form = FormOf(question, response, type, reading.fragment);
  reading.slot = SlotShare(q, asked_at, response);
  reading.defines_subject = !reading.fragment && DefinesTheQuestionsSubject(question, response);
  if (type == AnswerType::kAny) {
    reading.lexical = coverage;
    // "What band...?", "which company...?" ask for a thing by name: a bare number ("0.9 s.",
    // "1957") is an answer of another kind, as "1948" is to "who...?".
    // So is a name of another kind than the one the question's noun asks for.
    if (reading.fragment && AsksForAThing(q)) {
      bool numbers_only = content > 0;
      for (const ProfiledToken& t : r) numbers_only = numbers_only && (t.stop || !t.value.empty());
      reading.typed_question = numbers_only || NamesAnotherKind(AskedNounKind(q, asked_at), r);
    }
    return reading;
  }
  // "What year...?" asks for a year: a number with no measure bound to it ("1948", "in 793"),
  // not a duration ("275 years") or an amount ("$40").
  const bool asks_year =
      type == AnswerType::kTime && phrase_end > 0 &&
      (q[phrase_end - 1].folded == "year" || q[phrase_end - 1].folded == "years");
  bool typed = false;
  for (size_t i = 0; i < r.size() && !typed; ++i) {
    if (question.HasFolded(r[i].folded) && r[i].value.empty()) continue;  // the question's own
    if (asks_year && !r[i].value.empty() && !r[i].unit.empty()) continue;
    typed = Answers(type, r[i]);
  }
  if (type == AnswerType::kYesNo && !typed) typed = coverage >= 0.75;  // restates the predicate
  // A short answer ("At desk B in the arrivals hall.") or a yes/no is all answer; in a longer
  // sentence the kind of word asked for counts as far as the sentence is about the question.
  const bool direct = reading.fragment ||
                      (type == AnswerType::kYesNo && (r[0].folded == "yes" || r[0].folded == "no"));
  const double type_share = direct ? 1.0 : std::min(1.0, 2.0 * coverage);
  reading.typed = typed;
  reading.direct = direct;
  reading.lexical = kCoverageWeight * coverage + kTypeWeight * (typed ? type_share : 0.0);
  return reading;
}

std::string WithPronounResolved(std::string_view question, std::string_view response) {
  const size_t start = response.find_first_not_of(" \t\n\"'");
  if (start == std::string_view::npos) return std::string(response);
  size_t end = start;
  while (end < response.size() && std::isalpha(static_cast<unsigned char>(response[end]))) ++end;
  std::string first(response.substr(start, end - start));
  for (char& c : first) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (end >= response.size() || response[end] != ' ' || !In({"it", "he", "she", "they"}, first)) {
    return std::string(response);
  }
  // The question's longest run of capitalised words after its first word ("Eiffel Tower",
  // "Marie Curie"); "of"/"the" may join two capitalised words ("Bank of England").
  std::string best, run;
  size_t run_words = 0, best_words = 0;
  std::string pending;  // a joining word waiting for the next capitalised one
  size_t i = 0, word_index = 0;
  auto close_run = [&]() {
    if (run_words > best_words) {
      best = run;
      best_words = run_words;
    }
    run.clear();
    run_words = 0;
    pending.clear();
  };
  while (i < question.size()) {
    while (i < question.size() && !std::isalnum(static_cast<unsigned char>(question[i]))) {
      // Punctuation other than a hyphen or apostrophe ends a name.
      if (question[i] != ' ' && question[i] != '-' && question[i] != '\'') close_run();
      ++i;
    }
    const size_t from = i;
    while (i < question.size() && (std::isalnum(static_cast<unsigned char>(question[i])) ||
                                   question[i] == '-' || question[i] == '\'')) {
      ++i;
    }
    if (from == i) break;
    const std::string_view word = question.substr(from, i - from);
    const bool capital = std::isupper(static_cast<unsigned char>(word[0])) != 0;
    if (word_index++ > 0 && capital) {
      if (run_words > 0 && !pending.empty()) run += " " + pending;
      if (run_words > 0) run += " ";
      run += std::string(word);
      ++run_words;
      pending.clear();
    } else if (run_words > 0 && pending.empty() && (word == "of" || word == "the")) {
      pending = std::string(word);
    } else {
      close_run();
    }
  }
  close_run();
  if (best.empty()) return std::string(response);
  // Already named: nothing to resolve.
  std::string lower_response(response), lower_best(best);
  for (char& c : lower_response) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (char& c : lower_best) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower_response.find(lower_best) != std::string::npos) return std::string(response);
  return std::string(response.substr(0, start)) + best + std::string(response.substr(end));
}

double AnswerRelevance(const TextProfile& question, const TextProfile& response) {
  return ReadAnswer(question, response).lexical;
}

double OnTopicShare(const TextProfile& question, std::string_view context, text::Stemmer& stemmer,
                    size_t* count, double* bearing) {
  return OnTopicShare(question, text::SplitSentences(context), stemmer, count, bearing);
}

double OnTopicShare(const TextProfile& question, const std::vector<std::string>& sentences,
                    text::Stemmer& stemmer, size_t* count, double* bearing) {
  // A sentence is about the question when ReadAnswer would find some coverage: it states a
  // focus word, or the question has none. The focus is read once, not once a sentence.
  const std::vector<const ProfiledToken*> focus = QuestionFocus(question.tokens());
  size_t counted = 0, on_topic = 0, bears = 0;
  bool previous = false;
  for (const std::string& sentence : sentences) {
    const TextProfile profile(sentence, stemmer);
    const auto& tokens = profile.tokens();
    // "Yes.", "No, sorry.": a sentence of a word or two has no topic of its own.
    if (tokens.size() <= 2) continue;
    ++counted;
    const bool continues = previous && IsPersonalPronoun(tokens[0].folded);
    previous = continues || focus.empty() ||
               std::any_of(focus.begin(), focus.end(),
                           [&](const ProfiledToken* f) { return States(*f, profile); });
    on_topic += previous;
    if (bearing != nullptr) {
      const AnswerReading r = ReadAnswer(question, profile);
      bears += r.slot >= 0.5 || (r.typed_question && r.typed && r.coverage >= 0.5) ? 1 : 0;
    }
  }
  if (count != nullptr) *count = counted;
  if (bearing != nullptr) {
    *bearing = counted == 0 ? 0.0 : static_cast<double>(bears) / static_cast<double>(counted);
  }
  return counted == 0 ? 0.0 : static_cast<double>(on_topic) / static_cast<double>(counted);
}

}  // namespace tala::judges::offline
