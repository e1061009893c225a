#include "testset/meaning_merge.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "core/text/stemmer.h"
#include "core/text/stopwords.h"
#include "core/text/tokenize.h"
#include "judges/offline/claim_support.h"
#include "judges/offline/text_profile.h"
#include "judges/offline/wordnet.h"

namespace tala::testset {

std::vector<std::string> NamesOf(std::string_view question, const WordRecurrence* recurrence) {
  thread_local text::Stemmer stemmer;
  const judges::offline::WordNet& wordnet = judges::offline::WordNet::Get();
  std::vector<std::string> out;
  const std::vector<text::Token> tokens = text::Tokenize(question);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const text::Token& t = tokens[i];
    if (t.number) {
      out.push_back(t.text);
      continue;
    }
    if (text::IsStopWord(t.text)) continue;
    // A capital opening the question says nothing; one inside it marks a name. A word English
    // does not know is a name too ("goertz"), which keeps a log typed in lower case apart.
    // A word one edit from a word English knows is a typo of it, not a name ("taem").
    auto recurs = [&] {
      if (recurrence == nullptr) return false;
      auto it = recurrence->find(t.text);
      return it != recurrence->end() && it->second >= 2;
    };
    const bool name = (t.capitalised && i > 0) || (!wordnet.empty() && !KnownWord(t.text) &&
                                                   (!NearKnownWord(t.text) || recurs()));
    if (name) out.push_back(stemmer.Stem(t.text));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

size_t RepresentativeQuestion(const Grouping& g, const Intent& intent) {
  const std::vector<size_t>& asked = g.phrasings[intent.phrasings.front()].questions;
  for (size_t q : asked) {
    if (!g.corrected[q]) return q;
  }
  return asked.front();
}

namespace {

// The names most of an intent's questions (at most the first 64 of each phrasing) have: one
// asker's typo is no name of the intent.
std::vector<std::string> IntentNames(const Grouping& g, const Intent& intent,
                                     const std::vector<std::string>& questions,
                                     const WordRecurrence& recurrence) {
  std::map<std::string, int64_t> count;
  int64_t read = 0;
  for (size_t p : intent.phrasings) {
    const std::vector<size_t>& asked = g.phrasings[p].questions;
    for (size_t k = 0; k < asked.size() && k < 64; ++k, ++read) {
      for (std::string& name : NamesOf(questions[asked[k]], &recurrence)) {
        ++count[std::move(name)];
      }
    }
  }
  std::vector<std::string> out;
  for (const auto& [name, n] : count) {
    if (2 * n >= read) out.push_back(name);
  }
  return out;
}

// A content word of an intent's wording: not a stop word, a negation or one of its names.
bool IsContentWord(const judges::offline::ProfiledToken& t, const std::vector<std::string>& names) {
  return !t.stop && !t.negation && !std::binary_search(names.begin(), names.end(), t.stem);
}

// The attributes a question asks the value of with "how" and an adjective ("how far", "how
// tall", "how old"): the adjective's position and the nouns WordNet says it values ("distance",
// "height", "age"). Only after "how": elsewhere the adjective values the attribute ("slow down"
// against "speed up", "that is right" against "correctness") rather than asking for it.
std::vector<std::pair<size_t, std::vector<std::string>>> AskedAttributes(
    const judges::offline::TextProfile& p) {
  const judges::offline::WordNet& wordnet = judges::offline::WordNet::Get();
  std::vector<std::pair<size_t, std::vector<std::string>>> out;  // (position, nouns)
  const auto& tokens = p.tokens();
  for (size_t k = 1; k < tokens.size(); ++k) {
    if (tokens[k - 1].folded != "how") continue;
    std::vector<std::string> nouns;
    for (std::string_view noun : wordnet.Attributes(tokens[k].folded)) nouns.emplace_back(noun);
    if (!nouns.empty()) out.emplace_back(k, std::move(nouns));
  }
  return out;
}

using AskedAttributeList = std::vector<std::pair<size_t, std::vector<std::string>>>;

// Whether the content word at `k` of `a` is the attribute the other asks about, or an
// attribute `a` asks about that the other names: "how far apart" and "the distance between"
// state each other's "far" and "distance". `asked_a`, `asked_b`: AskedAttributes of each.
bool StatesAttribute(const judges::offline::TextProfile& a, size_t k,
                     const AskedAttributeList& asked_a, const judges::offline::TextProfile& b,
                     const AskedAttributeList& asked_b) {
  const judges::offline::ProfiledToken& t = a.tokens()[k];
  for (const auto& [at, nouns] : asked_a) {
    if (at != k) continue;
    for (const std::string& noun : nouns) {
      if (b.HasFolded(noun) || b.HasFolded(noun + "s")) return true;
    }
  }
  for (const auto& [at, nouns] : asked_b) {
    for (const std::string& noun : nouns) {
      if (t.folded == noun || t.folded == noun + "s") return true;
    }
  }
  return false;
}

// The content words of `a` that `b` does not state: not by stem, base form or synonym
// (claim_support.h's MatchInEvidence), nor as the attribute one of them asks about with "how"
// (StatesAttribute).
int64_t Unstated(const judges::offline::TextProfile& a, const judges::offline::TextProfile& b,
                 const std::vector<std::string>& names) {
  int64_t n = 0;
  std::optional<std::pair<AskedAttributeList, AskedAttributeList>> asked;  // read on first need
  for (size_t k = 0; k < a.tokens().size(); ++k) {
    const judges::offline::ProfiledToken& t = a.tokens()[k];
    if (!IsContentWord(t, names) || !judges::offline::MatchInEvidence(t, b).empty()) continue;
    if (!asked) asked.emplace(AskedAttributes(a), AskedAttributes(b));
    if (StatesAttribute(a, k, asked->first, b, asked->second)) continue;
    ++n;
  }
  return n;
}

// Each says a content word the other does not state: a contrast the encoder reads past
// ("cancel" against "upgrade" my subscription, "open" against "close"). Words only one of them
// adds ("the swimming pool") are none.
bool WordsContrast(const judges::offline::TextProfile& a, const std::vector<std::string>& a_names,
                   const judges::offline::TextProfile& b, const std::vector<std::string>& b_names) {
  return Unstated(a, b, a_names) > 0 && Unstated(b, a, b_names) > 0;
}

// Every name of each has its like in the other: the same, or one edit away (a typo).
bool NamesAgree(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  auto covered = [](const std::vector<std::string>& x, const std::vector<std::string>& y) {
    for (const std::string& name : x) {
      if (std::binary_search(y.begin(), y.end(), name)) continue;
      if (std::none_of(y.begin(), y.end(),
                       [&](const std::string& other) { return OneEditApart(name, other); })) {
        return false;
      }
    }
    return true;
  };
  return covered(a, b) && covered(b, a);
}

}  // namespace

Result<MeaningJoin> JoinByMeaning(Grouping& g, const std::vector<std::string>& questions,
                                  Embedder& embedder, double min_cosine) {
  MeaningJoin out;
  const size_t n = std::min(g.intents.size(), kMaxIntentsByMeaning);
  // What each intent says: its names, its typical wording, and that wording's content words.
  text::Stemmer stemmer;
  const judges::offline::WordNet& wordnet = judges::offline::WordNet::Get();
  std::vector<std::vector<std::string>> names(n);
  std::vector<std::string> wording(n);
  std::vector<judges::offline::TextProfile> profiles;
  profiles.reserve(n);
  std::map<std::string, std::vector<size_t>> with_name, with_word;
  // Words by the distinct wordings that say them (each phrasing's first question).
  WordRecurrence recurrence;
  for (const Phrasing& p : g.phrasings) {
    std::vector<text::Token> tokens = text::Tokenize(questions[p.questions.front()]);
    std::sort(tokens.begin(), tokens.end(),
              [](const text::Token& a, const text::Token& b) { return a.text < b.text; });
    for (size_t k = 0; k < tokens.size(); ++k) {
      if (k == 0 || tokens[k].text != tokens[k - 1].text) ++recurrence[tokens[k].text];
    }
  }
  for (size_t i = 0; i < n; ++i) {
    names[i] = IntentNames(g, g.intents[i], questions, recurrence);
    wording[i] = questions[RepresentativeQuestion(g, g.intents[i])];
    profiles.emplace_back(wording[i], stemmer);
    for (const std::string& name : names[i]) with_name[name].push_back(i);
    for (const judges::offline::ProfiledToken& t : profiles[i].tokens()) {
      if (!IsContentWord(t, names[i])) continue;
      std::vector<size_t>& list = with_word[t.stem];
      if (list.empty() || list.back() != i) list.push_back(i);
    }
  }
  // Candidates. Two intents join only when one states every content word of the other (by
  // stem, base form, synonym or attribute: no contrast, below) and their names agree, so an
  // intent meets every partner it could join through one key: its rarest content word with that
  // word's base forms, synonyms and attribute words, or, with none (a question of names alone), its
  // rarest name. Never the whole log pair by pair, even when every question names the same product.
  auto list_of = [](const std::map<std::string, std::vector<size_t>>& index,
                    const std::string& key) -> const std::vector<size_t>* {
    auto it = index.find(key);
    return it == index.end() ? nullptr : &it->second;
  };
  // Intents by their names' keys (DeletionKeys: two names a typo apart share one): a candidate must
  // agree with the intent's names, so an intent with names meets only intents with a name like its
  // rarest one, and one without only intents without (a templated log, "when does ferry 4711
  // sail?", shares every word and differs by its names: pair by pair it was 50 million pairs for
  // 10,000 questions).
  std::unordered_map<std::string, std::vector<size_t>> with_name_key;
  for (size_t i = 0; i < n; ++i) {
    for (const std::string& name : names[i]) {
      for (std::string& key : DeletionKeys(name)) {
        std::vector<size_t>& list = with_name_key[std::move(key)];
        if (list.empty() || list.back() != i) list.push_back(i);
      }
    }
  }
  std::vector<size_t> like_names(n, SIZE_MAX);  // == i: a name like i's rarest
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t i = 0; i < n; ++i) {
    if (!names[i].empty()) {
      const std::string* rarest = &names[i].front();
      for (const std::string& name : names[i]) {
        if (with_name.at(name).size() < with_name.at(*rarest).size()) rarest = &name;
      }
      for (const std::string& key : DeletionKeys(*rarest)) {
        for (size_t j : with_name_key.at(key)) like_names[j] = i;
      }
    }
    auto may_agree = [&](size_t j) {
      return names[i].empty() ? names[j].empty() : like_names[j] == i;
    };
    std::vector<const std::vector<size_t>*> lists;
    const judges::offline::ProfiledToken* word = nullptr;
    size_t fewest = SIZE_MAX;
    for (const judges::offline::ProfiledToken& t : profiles[i].tokens()) {
      if (!IsContentWord(t, names[i])) continue;
      const std::vector<size_t>* list = list_of(with_word, t.stem);
      if (list != nullptr && list->size() < fewest) {
        fewest = list->size();
        word = &t;
      }
    }
    if (word != nullptr) {
      lists.push_back(list_of(with_word, word->stem));
      std::vector<std::string> others;
      for (std::string_view b : wordnet.BaseForms(word->folded)) others.emplace_back(b);
      for (std::string_view syn : wordnet.Synonyms(word->folded)) others.emplace_back(syn);
      for (std::string_view attribute : wordnet.Attributes(word->folded)) {
        others.emplace_back(attribute);
      }
      for (const std::string& other : others) {
        if (const auto* list = list_of(with_word, stemmer.Stem(other))) lists.push_back(list);
      }
    } else if (!names[i].empty()) {
      const std::vector<size_t>* rarest = nullptr;
      for (const std::string& name : names[i]) {
        const std::vector<size_t>* list = list_of(with_name, name);
        if (rarest == nullptr || list->size() < rarest->size()) rarest = list;
      }
      lists.push_back(rarest);
    }
    for (const std::vector<size_t>* list : lists) {
      for (size_t j : *list) {
        if (j != i && may_agree(j)) pairs.emplace_back(std::min(i, j), std::max(i, j));
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  // Kept: names that agree, and words that do not contrast.
  auto words_contrast = [&](size_t a, size_t b) {
    return WordsContrast(profiles[a], names[a], profiles[b], names[b]);
  };
  std::vector<std::pair<size_t, size_t>> kept;
  for (const auto& [a, b] : pairs) {
    if (!NamesAgree(names[a], names[b])) continue;
    if (words_contrast(a, b)) {
      ++out.contrasted;
      continue;
    }
    kept.emplace_back(a, b);
  }
  if (kept.empty()) return out;
  std::vector<size_t> to_embed;
  for (const auto& [a, b] : kept) {
    to_embed.push_back(a);
    to_embed.push_back(b);
  }
  std::sort(to_embed.begin(), to_embed.end());
  to_embed.erase(std::unique(to_embed.begin(), to_embed.end()), to_embed.end());
  std::vector<std::string> texts;
  for (size_t i : to_embed) texts.push_back(wording[i]);
  TALA_ASSIGN_OR_RETURN(std::vector<std::vector<double>> vectors, embedder.Embed(texts));
  out.embedded = static_cast<int64_t>(to_embed.size());
  std::vector<size_t> row(n, SIZE_MAX);
  for (size_t k = 0; k < to_embed.size(); ++k) row[to_embed[k]] = k;
  // Each intent, the most asked first, joins the intent it is closest to among the more asked
  // ones that lead (have joined none) when their cosine reaches `min_cosine` and none of that
  // intent's members contrast with it; then it leads nothing. Joining any to any would chain:
  // "password?" is like "reset my password" and like "change my password", which are not
  // alike.
  // Per intent: the more asked intents close enough, (cosine, intent).
  std::vector<std::vector<std::pair<double, size_t>>> closer(n);
  for (const auto& [a, b] : kept) {
    const std::vector<double>& va = vectors[row[a]];
    const std::vector<double>& vb = vectors[row[b]];
    const double cosine = std::inner_product(va.begin(), va.end(), vb.begin(), 0.0);
    if (cosine >= min_cosine) closer[b].emplace_back(cosine, a);  // a < b: a is more asked
  }
  std::vector<size_t> leader(g.intents.size());
  std::iota(leader.begin(), leader.end(), 0);
  std::vector<std::vector<size_t>> members(n);
  for (size_t i = 0; i < n; ++i) members[i] = {i};
  auto contrast = [&](size_t a, size_t b) {
    return !NamesAgree(names[a], names[b]) || words_contrast(a, b);
  };
  for (size_t j = 0; j < n; ++j) {
    std::sort(closer[j].begin(), closer[j].end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first > y.first : x.second < y.second;
    });
    for (const auto& [cosine, i] : closer[j]) {
      if (leader[i] != i) continue;  // joined another: it leads nothing
      if (std::any_of(members[i].begin(), members[i].end(),
                      [&](size_t m) { return contrast(m, j); })) {
        continue;
      }
      leader[j] = i;
      members[i].push_back(j);
      break;
    }
  }
  std::vector<Intent> joined;
  std::vector<size_t> at(g.intents.size(), SIZE_MAX);
  for (size_t i = 0; i < g.intents.size(); ++i) {
    const size_t root = leader[i];
    if (at[root] == SIZE_MAX) {
      at[root] = joined.size();
      joined.push_back(std::move(g.intents[i]));
      continue;
    }
    Intent& into = joined[at[root]];
    into.phrasings.insert(into.phrasings.end(), g.intents[i].phrasings.begin(),
                          g.intents[i].phrasings.end());
    into.traffic += g.intents[i].traffic;
    ++out.joined;
  }
  g.intents = std::move(joined);
  FinishIntents(g);
  return out;
}

}  // namespace tala::testset
