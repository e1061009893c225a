#include "testset/question_groups.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/text/stemmer.h"
#include "core/text/stopwords.h"
#include "core/text/tokenize.h"
#include "core/text/word_sets.h"
#include "judges/offline/wordnet.h"

namespace tala::testset {

std::vector<std::string> DeletionKeys(const std::string& word) {
  std::vector<std::string> out = {word};
  for (size_t k = 0; k < word.size(); ++k) out.push_back(word.substr(0, k) + word.substr(k + 1));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool OneEditApart(const std::string& a, const std::string& b) {
  if (a == b) return false;
  const size_t la = a.size(), lb = b.size();
  if (la > lb + 1 || lb > la + 1) return false;
  size_t i = 0;
  while (i < la && i < lb && a[i] == b[i]) ++i;
  if (la == lb) {
    if (a.compare(i + 1, std::string::npos, b, i + 1, std::string::npos) == 0) return true;
    return i + 1 < la && a[i] == b[i + 1] && a[i + 1] == b[i] &&
           a.compare(i + 2, std::string::npos, b, i + 2, std::string::npos) == 0;
  }
  const std::string& longer = la > lb ? a : b;
  const std::string& shorter = la > lb ? b : a;
  return longer.compare(i + 1, std::string::npos, shorter, i, std::string::npos) == 0;
}

bool KnownWord(const std::string& w) {
  const judges::offline::WordNet& wordnet = judges::offline::WordNet::Get();
  if (wordnet.Knows(w)) return true;
  auto ends = [&](std::string_view suffix) {
    return w.size() > suffix.size() + 2 &&
           w.compare(w.size() - suffix.size(), suffix.size(), suffix.data(), suffix.size()) == 0;
  };
  auto knows_base = [&](size_t cut, std::string_view add) {
    std::string base = w.substr(0, w.size() - cut);
    base += add;
    if (wordnet.Knows(base)) return true;
    // A doubled consonant: "stopped" -> "stop".
    const size_t n = base.size();
    return add.empty() && n > 3 && base[n - 1] == base[n - 2] &&
           wordnet.Knows(base.substr(0, n - 1));
  };
  if (ends("ies") && knows_base(3, "y")) return true;
  if (ends("ied") && knows_base(3, "y")) return true;
  if (ends("ed") && (knows_base(2, "") || knows_base(1, ""))) return true;
  if (ends("ing") && (knows_base(3, "") || knows_base(3, "e"))) return true;
  if (ends("ly") && knows_base(2, "")) return true;
  if (ends("s") && knows_base(1, "")) return true;
  return false;
}

namespace {

// Every string one edit from `w` (a deletion, a swap of neighbours, a substitution or an
// insertion of a letter), `w` itself left out; `visit` returns true to stop.
template <typename Visit>
bool AnyOneEdit(const std::string& w, Visit visit) {
  std::string v;
  for (size_t i = 0; i < w.size(); ++i) {
    v = w;
    v.erase(i, 1);
    if (visit(v)) return true;
    if (i + 1 < w.size() && w[i] != w[i + 1]) {
      v = w;
      std::swap(v[i], v[i + 1]);
      if (visit(v)) return true;
    }
  }
  for (size_t i = 0; i <= w.size(); ++i) {
    for (char c = 'a'; c <= 'z'; ++c) {
      if (i < w.size() && w[i] != c) {
        v = w;
        v[i] = c;
        if (visit(v)) return true;
      }
      v = w;
      v.insert(v.begin() + static_cast<std::ptrdiff_t>(i), c);
      if (visit(v)) return true;
    }
  }
  return false;
}

bool Lowercase(const std::string& w) {
  return std::all_of(w.begin(), w.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

}  // namespace

bool NearKnownWord(const std::string& w) {
  if (w.size() < 4 || w.size() > 15 || !Lowercase(w)) return false;
  thread_local std::unordered_map<std::string, bool> seen;
  auto it = seen.find(w);
  if (it != seen.end()) return it->second;
  const judges::offline::WordNet& wordnet = judges::offline::WordNet::Get();
  const bool near = !wordnet.empty() && AnyOneEdit(w, [&](const std::string& v) {
    return v.size() >= 3 && wordnet.Knows(v);
  });
  if (seen.size() > 100000) seen.clear();
  seen.emplace(w, near);
  return near;
}

bool TypoOfStopWord(const std::string& w) {
  if (w.size() < 2 || w.size() > 8 || !Lowercase(w) || text::IsStopWord(w)) return false;
  thread_local std::unordered_map<std::string, bool> seen;
  auto it = seen.find(w);
  if (it != seen.end()) return it->second;
  const bool typo = !KnownWord(w) && AnyOneEdit(w, [](const std::string& v) {
    return v.size() >= 2 && text::IsStopWord(v);
  });
  if (seen.size() > 100000) seen.clear();
  seen.emplace(w, typo);
  return typo;
}

size_t EditsApart(const std::string& a, const std::string& b, size_t cap) {
  const size_t la = a.size(), lb = b.size();
  if ((la > lb ? la - lb : lb - la) > cap) return cap + 1;
  // Optimal string alignment: three rows of the table.
  std::vector<size_t> before(lb + 1), prev(lb + 1), row(lb + 1);
  std::iota(prev.begin(), prev.end(), 0);
  for (size_t i = 1; i <= la; ++i) {
    row[0] = i;
    size_t least = row[0];
    for (size_t j = 1; j <= lb; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
      least = std::min(least, row[j]);
    }
    if (least > cap) return cap + 1;
    before.swap(prev);
    prev.swap(row);
  }
  return std::min(prev[lb], cap + 1);
}

namespace {

bool HasDigit(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The word a term was first seen as in the log, and whether English knows that word.
struct TermWord {
  std::string word;
  bool known = false;
};
using TermWords = std::unordered_map<std::string, TermWord>;

// The questions (their index) each term is said in.
using Postings = std::unordered_map<std::string, std::vector<uint32_t>>;

// How much of `term`'s company `other` keeps: the most words a question saying `other` shares
// with a question saying `term` (its first 20 questions, the other's first 50). A typo is most
// often a variant of a question asked right: "and Sike Slawson" keeps the company of "spike", not
// of "dike".
size_t SharedCompany(const std::string& term, const std::string& other, const Postings& postings,
                     const std::vector<std::vector<std::string>>& question_terms) {
  const std::vector<uint32_t>& mine = postings.at(term);
  const std::vector<uint32_t>& theirs = postings.at(other);
  size_t best = 0;
  for (size_t i = 0; i < mine.size() && i < 20; ++i) {
    const std::vector<std::string>& a = question_terms[mine[i]];
    for (size_t j = 0; j < theirs.size() && j < 50; ++j) {
      best = std::max(best, text::CommonCount(a, question_terms[theirs[j]]));
    }
  }
  return best;
}

// Spelling from the log: each rare term's frequent neighbour one edit away, if any.
// And spelling from the lexicon: a term whose word English does not know, one edit from a
// term whose word it knows and that the log uses at least as often, is read as that term
// ("taem" as "team" however often the typo recurs). Of several such neighbours, the one whose
// questions share most words with the term's (SharedCompany), then the most used.
std::unordered_map<std::string, std::string> Corrections(
    const std::unordered_map<std::string, int64_t>& counts, const TermWords& words,
    const Postings& postings, const std::vector<std::vector<std::string>>& question_terms) {
  auto knows = [&](const std::string& t) {
    auto it = words.find(t);
    return it != words.end() && it->second.known;
  };
  std::unordered_map<std::string, std::vector<const std::string*>> by_key;
  // A term of 4 to 30 letters may be a typo: shorter ones are too near each other, and longer
  // ones are no word (a URL, a token, base64); each term's keys cost its length squared.
  auto spelled = [](const std::string& t) {
    return t.size() >= 4 && t.size() <= 30 && !HasDigit(t);
  };
  for (const auto& [term, n] : counts) {
    if (!spelled(term)) continue;
    for (std::string& k : DeletionKeys(term)) by_key[std::move(k)].push_back(&term);
  }
  std::unordered_map<std::string, std::string> out;
  for (const auto& [term, n] : counts) {
    if (!spelled(term)) continue;
    const bool unknown = !knows(term);
    std::vector<const std::string*> candidates;
    for (const std::string& k : DeletionKeys(term)) {
      auto it = by_key.find(k);
      if (it == by_key.end()) continue;
      for (const std::string* other : it->second) {
        const int64_t m = counts.at(*other);
        const bool frequent = m >= 5 * n, lexicon = unknown && m >= n && knows(*other);
        if ((!frequent && !lexicon) || !OneEditApart(term, *other)) continue;
        if (std::find(candidates.begin(), candidates.end(), other) == candidates.end()) {
          candidates.push_back(other);
        }
      }
    }
    const std::string* best = nullptr;
    size_t best_company = 0;
    int64_t best_n = 0;
    for (const std::string* other : candidates) {
      const size_t company =
          candidates.size() > 1 ? SharedCompany(term, *other, postings, question_terms) : 0;
      const int64_t m = counts.at(*other);
      if (best == nullptr || company > best_company ||
          (company == best_company && (m > best_n || (m == best_n && *other < *best)))) {
        best = other;
        best_company = company;
        best_n = m;
      }
    }
    if (best != nullptr) out[term] = *best;
  }
  return out;
}

// Words run together: a term whose word English does not know (six letters or more, no digit)
// that splits into two words it knows, of three letters or more, that the log's questions also
// use on their own, is read as those two ("teammanager" as "team" and "manager"); of several
// splits, the one whose rarer word the log uses most.
std::unordered_map<std::string, std::pair<std::string, std::string>> Compounds(
    const std::unordered_map<std::string, int64_t>& counts, const TermWords& words,
    const std::unordered_map<std::string, std::string>& corrections) {
  thread_local text::Stemmer stemmer;
  std::unordered_map<std::string, std::pair<std::string, std::string>> out;
  for (const auto& [term, n] : counts) {
    auto it = words.find(term);
    if (it == words.end() || it->second.known || corrections.count(term)) continue;
    const std::string& word = it->second.word;
    if (word.size() < 6 || word.size() > 30 || HasDigit(word)) continue;
    int64_t best = 0;
    for (size_t cut = 3; cut + 3 <= word.size(); ++cut) {
      const std::string left = word.substr(0, cut), right = word.substr(cut);
      if (text::IsStopWord(left) || text::IsStopWord(right)) continue;
      if (!KnownWord(left) || !KnownWord(right)) continue;
      std::string a = stemmer.Stem(left), b = stemmer.Stem(right);
      auto ca = counts.find(a), cb = counts.find(b);
      if (ca == counts.end() || cb == counts.end()) continue;
      const int64_t rarer = std::min(ca->second, cb->second);
      if (rarer > best) {
        best = rarer;
        out[term] = {std::move(a), std::move(b)};
      }
    }
  }
  return out;
}

// One says a word whose opposite the other says ("open" / "close", "first" / "last"): whatever
// else they share, they ask other things. Not when either also says the other's word, or a typo
// of it: the typo variants of a question that holds both ("a live show, later recorded").
bool Opposed(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  thread_local text::Stemmer stemmer;
  const judges::offline::WordNet& wordnet = judges::offline::WordNet::Get();
  auto says = [](const std::vector<std::string>& terms, const std::string& t) {
    return std::binary_search(terms.begin(), terms.end(), t) ||
           std::any_of(terms.begin(), terms.end(),
                       [&](const std::string& other) { return OneEditApart(t, other); });
  };
  for (const std::string& t : a) {
    if (says(b, t)) continue;
    for (std::string_view antonym : wordnet.Antonyms(t)) {
      const std::string opposite = stemmer.Stem(std::string(antonym));
      if (std::binary_search(b.begin(), b.end(), opposite) && !says(a, opposite)) return true;
    }
  }
  return false;
}

// Each says a content word the other does not say: they ask other things, however much else
// they share ("add" / "delete" channels to favourites, the "Basic" / the "Premium" plan, the width
// of the "stand" / of the "TV"). A filler, a typo or a WordNet synonym of the
// other's word is no contrast.
bool Contrast(const std::vector<std::string>& a, const std::vector<std::string>& b,
              const TermWords& words, const std::unordered_set<std::string>& named) {
  thread_local text::Stemmer stemmer;
  const judges::offline::WordNet& wordnet = judges::offline::WordNet::Get();
  // One edit apart, or two between words of four letters or more ("amrcan", "Saint" typed
  // "sang").
  auto near = [](const std::string& x, const std::string& y) {
    if (std::min(x.size(), y.size()) < 4) return OneEditApart(x, y);
    return EditsApart(x, y, 2) <= 2;
  };
  auto unsaid = [&](const std::vector<std::string>& x, const std::vector<std::string>& y) {
    for (const std::string& t : x) {
      if (std::binary_search(y.begin(), y.end(), t) || Filler(t)) continue;
      auto it = words.find(t);
      const bool unknown = it != words.end() && !it->second.known;
      // A word English does not know says nothing on its own (a typo, or a product code one
      // asker wrote), unless someone wrote it as a name (a capital inside the question) or it
      // holds a digit ("10am", "4k").
      if (unknown && !named.count(t) && !HasDigit(t)) continue;
      // A typo of the other's word, by the stems or by the words they stem ("engineeers" stems
      // to "engineeer"), or a stem the other begins with ("park", "parker"). A word English
      // does not know may also be two edits from the other's stem ("grrene", "fondr"), or begin
      // with it but for one ("performign", "publiict"): typos the log's spelling did not mend.
      // A name English knows (a capital inside the question: "the Plus plan") is a typo of
      // another word English knows one edit away at most: two would take "plus" for "plan". A
      // name typed wrong ("Slawsno") is no English word, and keeps two.
      const bool name = named.count(t) > 0 && !unknown;
      auto known = [&](const std::string& other) {
        auto o = words.find(other);
        return o != words.end() && o->second.known;
      };
      auto typo = [&](const std::string& other) {
        const bool strict = name && known(other);
        auto close = [&](const std::string& x, const std::string& y) {
          return strict ? OneEditApart(x, y) : near(x, y);
        };
        if (close(t, other)) return true;
        if (other.size() >= 4 && t.compare(0, other.size(), other) == 0) return true;
        if (t.size() >= 4 && other.compare(0, t.size(), t) == 0) return true;
        if (it == words.end()) return false;
        const std::string& w = it->second.word;
        auto o = words.find(other);
        if (o != words.end() && close(w, o->second.word)) return true;
        if (!unknown) return false;
        if (std::min(w.size(), other.size()) >= 5 && EditsApart(w, other, 2) <= 2) return true;
        return other.size() >= 4 && EditsApart(w.substr(0, other.size()), other, 1) <= 1;
      };
      if (std::any_of(y.begin(), y.end(), typo)) continue;
      bool synonym = false;
      if (it != words.end()) {
        for (std::string_view base : wordnet.BaseForms(it->second.word)) {
          for (std::string_view syn : wordnet.Synonyms(base)) {
            synonym =
                synonym || std::binary_search(y.begin(), y.end(), stemmer.Stem(std::string(syn)));
          }
        }
      }
      if (!synonym) return true;
    }
    return false;
  };
  return unsaid(a, b) && unsaid(b, a);
}

}  // namespace

bool Filler(const std::string& term) {
  static const std::set<std::string> fillers = [] {
    text::Stemmer stemmer;
    std::set<std::string> out;
    for (const char* w :
         {"hi",     "hello",   "hey",      "thanks",   "thank",   "thx",       "ty",      "pls",
          "please", "plz",     "ok",       "okay",     "quick",   "question",  "help",    "need",
          "want",   "wonder",  "know",     "tell",     "like",    "just",      "also",    "really",
          "anyone", "someone", "somebody", "possible", "way",     "hmm",       "um",      "guys",
          "sir",    "kindly",  "actually", "again",    "still",   "currently", "exactly", "find",
          "out",    "get",     "asap",     "urgent",   "urgently"}) {
      out.insert(stemmer.Stem(w));
    }
    return out;
  }();
  return fillers.count(term) > 0;
}

std::vector<std::string> TermsOf(std::string_view text) {
  thread_local text::Stemmer stemmer;
  std::vector<std::string> out;
  for (const text::Token& t : text::Tokenize(text)) {
    if (!t.number && text::IsStopWord(t.text)) continue;
    out.push_back(t.number ? t.text : stemmer.Stem(t.text));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double Grouping::Weight(const std::string& term) const {
  auto it = std::lower_bound(weights.begin(), weights.end(), term,
                             [](const auto& w, const std::string& t) { return w.first < t; });
  if (it != weights.end() && it->first == term) return it->second;
  return std::log(1.0 + static_cast<double>(std::max<size_t>(1, phrasings.size())));
}

double WeightedSimilarity(const std::vector<std::string>& a, const std::vector<std::string>& b,
                          const Grouping& grouping) {
  double shared = 0, all = 0;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i] < b[j])) {
      all += grouping.Weight(a[i++]);
    } else if (i == a.size() || b[j] < a[i]) {
      all += grouping.Weight(b[j++]);
    } else {
      const double w = grouping.Weight(a[i]);
      shared += w;
      all += w;
      ++i;
      ++j;
    }
  }
  return all > 0 ? shared / all : 1.0;
}

Grouping GroupQuestions(const std::vector<std::string>& questions, double min_similarity,
                        bool contrast) {
  Grouping g;
  g.question_terms.reserve(questions.size());
  std::unordered_map<std::string, int64_t> counts;
  TermWords words;                        // term -> the first word it stems, known or not
  Postings postings;                      // term -> the questions that say it
  std::unordered_set<std::string> named;  // terms written with a capital inside a question
  thread_local text::Stemmer stemmer;
  for (const std::string& q : questions) {
    std::vector<std::string> terms;
    const std::vector<text::Token> tokens = text::Tokenize(q);
    for (size_t k = 0; k < tokens.size(); ++k) {
      const text::Token& t = tokens[k];
      if (!t.number && (text::IsStopWord(t.text) || TypoOfStopWord(t.text))) continue;
      std::string term = t.number ? t.text : stemmer.Stem(t.text);
      if (k > 0 && t.capitalised) named.insert(term);
      if (auto [it, added] = words.try_emplace(term); added)
        it->second = {t.text, KnownWord(t.text)};
      terms.push_back(std::move(term));
    }
    std::sort(terms.begin(), terms.end());
    terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
    for (const std::string& t : terms) {
      ++counts[t];
      postings[t].push_back(static_cast<uint32_t>(g.question_terms.size()));
    }
    g.question_terms.push_back(std::move(terms));
  }
  const auto corrections = Corrections(counts, words, postings, g.question_terms);
  const auto compounds = Compounds(counts, words, corrections);
  std::unordered_map<std::string, size_t> phrasing_of;
  g.corrected.assign(questions.size(), false);
  for (size_t q = 0; q < questions.size(); ++q) {
    std::vector<std::string>& terms = g.question_terms[q];
    const size_t said = terms.size();
    for (size_t k = 0; k < said; ++k) {
      auto it = corrections.find(terms[k]);
      if (it != corrections.end()) {
        terms[k] = it->second;
        g.corrected[q] = true;
      }
      auto split = compounds.find(terms[k]);
      if (split != compounds.end()) {
        terms[k] = split->second.first;
        terms.push_back(split->second.second);
        g.corrected[q] = true;
      }
    }
    std::sort(terms.begin(), terms.end());
    terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
    std::string key;
    for (const std::string& t : terms) key += t + '\x1f';
    auto [it, added] = phrasing_of.try_emplace(key, g.phrasings.size());
    if (added) g.phrasings.push_back({terms, {}});
    g.phrasings[it->second].questions.push_back(q);
  }
  // Rarity among the phrasings.
  std::map<std::string, int64_t> df;
  for (const Phrasing& p : g.phrasings) {
    for (const std::string& t : p.terms) ++df[t];
  }
  const double total = static_cast<double>(g.phrasings.size());
  for (const auto& [t, n] : df) {
    g.weights.emplace_back(t, std::log(1.0 + total / static_cast<double>(n)));
  }
  // Intents: each phrasing, the most asked first, joins the intent whose leader (its most asked
  // phrasing) it is most like, when alike enough, or leads a new one. Comparing with leaders
  // only, never with every member, keeps a chain of small steps ("reset my password on the
  // app" ~ "... online" ~ "change my password online" ~ ...) from joining a whole log into one
  // intent. Candidates are the leaders that share one of its rarest terms (three each: the
  // names an intent is about), so a phrasing is compared with a few leaders, never with all.
  const size_t n = g.phrasings.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return g.phrasings[a].questions.size() > g.phrasings[b].questions.size();
  });
  auto rarest = [&](size_t p) {
    std::vector<std::pair<double, const std::string*>> ranked;
    for (const std::string& t : g.phrasings[p].terms) ranked.emplace_back(-g.Weight(t), &t);
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : *a.second < *b.second;
    });
    if (ranked.size() > 3) ranked.resize(3);
    return ranked;
  };
  std::unordered_map<std::string, std::vector<size_t>> leaders_with;  // rarest term -> leaders
  std::vector<size_t> leader_of(n, SIZE_MAX);
  std::vector<size_t> seen(n, SIZE_MAX);
  for (size_t p : order) {
    const auto terms = rarest(p);
    size_t best = SIZE_MAX;
    double best_similarity = min_similarity;
    for (const auto& [w, t] : terms) {
      auto it = leaders_with.find(*t);
      if (it == leaders_with.end()) continue;
      for (size_t leader : it->second) {
        if (seen[leader] == p) continue;
        seen[leader] = p;
        const auto& a = g.phrasings[p].terms;
        const auto& b = g.phrasings[leader].terms;
        const double similarity = WeightedSimilarity(a, b, g);
        if (similarity < best_similarity || (similarity == best_similarity && best < leader)) {
          continue;
        }
        if (Opposed(a, b) || Opposed(b, a)) continue;
        if (contrast && Contrast(a, b, words, named)) continue;
        best = leader;
        best_similarity = similarity;
      }
    }
    if (best != SIZE_MAX) {
      leader_of[p] = best;
      continue;
    }
    leader_of[p] = p;
    for (const auto& [w, t] : terms) leaders_with[*t].push_back(p);
  }
  std::map<size_t, size_t> intent_of;  // leader -> intent
  for (size_t p = 0; p < n; ++p) {
    auto [it, added] = intent_of.try_emplace(leader_of[p], g.intents.size());
    if (added) g.intents.emplace_back();
    Intent& intent = g.intents[it->second];
    intent.phrasings.push_back(p);
    intent.traffic += static_cast<int64_t>(g.phrasings[p].questions.size());
  }
  FinishIntents(g);
  return g;
}

void FinishIntents(Grouping& g) {
  for (Intent& intent : g.intents) {
    std::sort(intent.phrasings.begin(), intent.phrasings.end(), [&](size_t a, size_t b) {
      const size_t na = g.phrasings[a].questions.size(), nb = g.phrasings[b].questions.size();
      return na != nb ? na > nb : a < b;
    });
    std::map<std::string, int64_t> in;
    for (size_t p : intent.phrasings) {
      for (const std::string& t : g.phrasings[p].terms) {
        in[t] += static_cast<int64_t>(g.phrasings[p].questions.size());
      }
    }
    intent.terms.clear();
    for (const auto& [t, n] : in) {
      if (2 * n >= intent.traffic) intent.terms.push_back(t);
    }
  }
  // Most asked first; ties: the first asked (its earliest phrasing) first. Intents hold
  // disjoint phrasings, so the order is total.
  auto first = [](const Intent& i) {
    return *std::min_element(i.phrasings.begin(), i.phrasings.end());
  };
  std::sort(g.intents.begin(), g.intents.end(), [&](const Intent& a, const Intent& b) {
    return a.traffic != b.traffic ? a.traffic > b.traffic : first(a) < first(b);
  });
}

}  // namespace tala::testset
