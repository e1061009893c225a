#include "testset/question_groups.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <unordered_map>

#include "core/text/stemmer.h"
#include "core/text/stopwords.h"
#include "core/text/tokenize.h"
#include "judges/offline/wordnet.h"

namespace tala::testset {

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

namespace {

bool HasDigit(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Spelling from the log: each rare term's frequent neighbour one edit away, if any.
std::unordered_map<std::string, std::string> Corrections(
    const std::unordered_map<std::string, int64_t>& counts) {
  std::unordered_map<std::string, std::vector<const std::string*>> by_key;
  auto keys = [](const std::string& t) {
    std::vector<std::string> out = {t};
    for (size_t i = 0; i < t.size(); ++i) out.push_back(t.substr(0, i) + t.substr(i + 1));
    return out;
  };
  // A term of 4 to 30 letters may be a typo: shorter ones are too near each other, and longer
  // ones are no word (a URL, a token, base64); each term's keys cost its length squared.
  auto spelled = [](const std::string& t) {
    return t.size() >= 4 && t.size() <= 30 && !HasDigit(t);
  };
  for (const auto& [term, n] : counts) {
    if (!spelled(term)) continue;
    for (std::string& k : keys(term)) by_key[std::move(k)].push_back(&term);
  }
  std::unordered_map<std::string, std::string> out;
  for (const auto& [term, n] : counts) {
    if (!spelled(term)) continue;
    const std::string* best = nullptr;
    int64_t best_n = 0;
    for (const std::string& k : keys(term)) {
      auto it = by_key.find(k);
      if (it == by_key.end()) continue;
      for (const std::string* other : it->second) {
        const int64_t m = counts.at(*other);
        if (m < 5 * n || !OneEditApart(term, *other)) continue;
        if (m > best_n || (m == best_n && *other < *best)) {
          best = other;
          best_n = m;
        }
      }
    }
    if (best != nullptr) out[term] = *best;
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

}  // namespace

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

Grouping GroupQuestions(const std::vector<std::string>& questions, double min_similarity) {
  Grouping g;
  g.question_terms.reserve(questions.size());
  std::unordered_map<std::string, int64_t> counts;
  for (const std::string& q : questions) {
    g.question_terms.push_back(TermsOf(q));
    for (const std::string& t : g.question_terms.back()) ++counts[t];
  }
  const auto corrections = Corrections(counts);
  std::unordered_map<std::string, size_t> phrasing_of;
  g.corrected.assign(questions.size(), false);
  for (size_t q = 0; q < questions.size(); ++q) {
    std::vector<std::string>& terms = g.question_terms[q];
    for (std::string& t : terms) {
      auto it = corrections.find(t);
      if (it != corrections.end()) {
        t = it->second;
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
