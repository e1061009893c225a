#include "judges/offline/wordnet.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace tala::judges::offline {

namespace {

// Senses kept per lemma and part of speech: WordNet lists senses by frequency, and the rare
// ones ("first" as "first base") would make unrelated words look like synonyms.
constexpr size_t kSensesKept = 2;
constexpr const char* kParts[] = {"noun", "verb", "adj", "adv"};

std::string CleanLemma(std::string_view word) {
  std::string w(word.substr(0, word.find('(')));  // adjective markers: "galore(ip)"
  for (char& c : w) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return w;
}

uint64_t Key(int part, uint64_t offset) { return (offset << 2) | static_cast<uint64_t>(part); }

// A whole file at once: the lexicon is read on every process's first offline judgement, and
// line-by-line streams with a parsed stream per line cost most of a second.
std::string ReadFile(const std::string& path) {
  std::string text;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return text;
  char buf[1 << 16];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f.get())) > 0;) text.append(buf, n);
  return text;
}

// The lines of a text, and the space-separated fields of a line.
class Fields {
 public:
  explicit Fields(std::string_view text) : rest_(text) {}
  bool empty() const { return rest_.find_first_not_of(' ') == std::string_view::npos; }
  std::string_view Next() {
    size_t start = rest_.find_first_not_of(' ');
    if (start == std::string_view::npos) return rest_ = {};
    size_t end = rest_.find(' ', start);
    std::string_view field = rest_.substr(start, end - start);
    rest_ = end == std::string_view::npos ? std::string_view() : rest_.substr(end);
    return field;
  }
  uint64_t Number(int base = 10) {
    std::string_view field = Next();
    uint64_t n = 0;
    std::from_chars(field.data(), field.data() + field.size(), n, base);
    return n;
  }

 private:
  std::string_view rest_;
};

template <typename OnLine>
void ForEachLine(const std::string& text, OnLine on_line) {
  std::string_view all = text;
  while (!all.empty()) {
    size_t end = all.find('\n');
    std::string_view line = all.substr(0, end);
    all = end == std::string_view::npos ? std::string_view() : all.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty() && line[0] != ' ') on_line(line);  // a leading space: the license header
  }
}

// What the text files say, before it is laid out as a table.
struct TextLexicon {
  std::unordered_map<std::string, std::vector<uint32_t>> senses;  // lemma -> synset ids
  std::vector<std::vector<std::string>> synset_words;
  std::unordered_map<std::string, std::vector<std::string>> antonyms;
  // Adjectives and the noun of the attribute they value, both ways ("far" / "distance", "tall" /
  // "height"): WordNet's "=" pointers between synsets.
  std::unordered_map<std::string, std::vector<std::string>> attributes;
  std::unordered_map<std::string, std::vector<std::string>> exceptions;
  std::unordered_set<std::string> verbs;
  std::unordered_set<std::string> proper;
  // lemma -> the kind of its most frequent noun sense (WordNet's lexicographer file)
  std::unordered_map<std::string, NounKind> noun_kind;
};

// WordNet's noun lexicographer files (lexnames) 14, 15, 18 and 28, and artifacts (6).
NounKind KindOfLexFile(uint64_t lex_filenum) {
  switch (lex_filenum) {
    case 6:
      return NounKind::kArtifact;
    case 14:
      return NounKind::kGroup;
    case 15:
      return NounKind::kPlace;
    case 18:
      return NounKind::kPerson;
    case 28:
      return NounKind::kTime;
    default:
      return NounKind::kOther;
  }
}

TextLexicon ReadText(const std::string& dir) {
  TextLexicon wn;
  // index.POS: lemma pos synset_cnt p_cnt [ptr]... sense_cnt tagsense_cnt offset...
  std::unordered_map<uint64_t, uint32_t> wanted;  // (part, offset) -> synset id
  std::vector<std::pair<std::string, uint64_t>> lemma_keys;
  std::unordered_map<uint64_t, std::vector<std::string>> first_noun_sense;  // offset -> lemmas
  for (int part = 0; part < 4; ++part) {
    ForEachLine(ReadFile(dir + "/index." + kParts[part]), [&](std::string_view line) {
      Fields f(line);
      std::string lemma(f.Next());
      const std::string_view pos = f.Next();
      const uint64_t synset_cnt = f.Number(), p_cnt = f.Number();
      if (pos == "v") wn.verbs.insert(lemma);
      for (uint64_t i = 0; i < p_cnt + 2; ++i) f.Next();
      for (uint64_t i = 0; i < synset_cnt && i < kSensesKept; ++i) {
        const uint64_t offset = f.Number();
        if (part == 0 && i == 0) first_noun_sense[offset].push_back(lemma);
        const uint64_t key = Key(part, offset);
        wanted.try_emplace(key, static_cast<uint32_t>(wanted.size()));
        lemma_keys.emplace_back(lemma, key);
      }
    });
  }
  if (wanted.empty()) return wn;
  wn.synset_words.resize(wanted.size());
  // data.POS: offset lex_filenum ss_type w_cnt(hex) [word lex_id]... p_cnt [sym offset pos st]...
  std::unordered_map<uint64_t, std::vector<std::string>> every_synset;  // Key(part, offset)
  std::vector<std::pair<uint64_t, uint64_t>> attribute_ptrs;            // Keys: from, to
  for (int part = 0; part < 4; ++part) {
    std::unordered_map<uint64_t, std::vector<std::string>> all_words;  // for antonym targets
    std::vector<std::tuple<std::string, uint64_t, uint64_t>> antonym_ptrs;
    ForEachLine(ReadFile(dir + "/data." + kParts[part]), [&](std::string_view line) {
      Fields f(line);
      const uint64_t offset = f.Number();
      const uint64_t lex_filenum = f.Number();
      if (part == 0) {
        auto first = first_noun_sense.find(offset);
        if (first != first_noun_sense.end()) {
          for (const std::string& lemma : first->second) {
            wn.noun_kind[lemma] = KindOfLexFile(lex_filenum);
          }
        }
      }
      f.Next();  // ss_type
      const uint64_t w_cnt = f.Number(16);
      std::vector<std::string> words;
      for (uint64_t i = 0; i < w_cnt; ++i) {
        std::string_view w = f.Next();
        f.Next();  // lex_id
        if (!w.empty() && w[0] >= 'A' && w[0] <= 'Z') wn.proper.insert(CleanLemma(w));
        words.push_back(CleanLemma(w));
      }
      const uint64_t p_cnt = f.Number();
      for (uint64_t i = 0; i < p_cnt; ++i) {
        const std::string_view sym = f.Next();
        const uint64_t target = f.Number();
        const std::string_view target_pos = f.Next();
        const std::string_view st = f.Next();  // source and target word numbers, hex
        if (sym == "=") {
          const int to = target_pos == "n" ? 0 : target_pos == "a" || target_pos == "s" ? 2 : -1;
          if (to >= 0) attribute_ptrs.emplace_back(Key(part, offset), Key(to, target));
          continue;
        }
        if (sym != "!" || st.size() < 4) continue;
        uint64_t source = 0, target_word = 0;
        std::from_chars(st.data(), st.data() + 2, source, 16);
        std::from_chars(st.data() + 2, st.data() + 4, target_word, 16);
        if (source >= 1 && source <= words.size()) {
          antonym_ptrs.emplace_back(words[source - 1], target, target_word);
        }
      }
      auto it = wanted.find(Key(part, offset));
      if (it != wanted.end()) wn.synset_words[it->second] = words;
      every_synset.emplace(Key(part, offset), words);
      all_words.emplace(offset, std::move(words));
    });
    for (const auto& [word, target, target_word] : antonym_ptrs) {
      auto t = all_words.find(target);
      if (t == all_words.end() || target_word < 1 || target_word > t->second.size()) continue;
      wn.antonyms[word].push_back(t->second[target_word - 1]);
    }
    // POS.exc: inflected base [base...]
    ForEachLine(ReadFile(dir + "/" + kParts[part] + ".exc"), [&](std::string_view line) {
      Fields f(line);
      const std::string_view inflected = f.Next();
      std::vector<std::string> bases;
      while (!f.empty()) bases.emplace_back(f.Next());
      if (bases.empty()) return;
      std::vector<std::string>& known = wn.exceptions[std::string(inflected)];
      known.insert(known.end(), bases.begin(), bases.end());
    });
  }
  for (const auto& [from, to] : attribute_ptrs) {
    auto a = every_synset.find(from), b = every_synset.find(to);
    if (a == every_synset.end() || b == every_synset.end()) continue;
    for (const std::string& x : a->second) {
      for (const std::string& y : b->second) {
        if (x.find('_') != std::string::npos || y.find('_') != std::string::npos) continue;
        std::vector<std::string>& list = wn.attributes[x];
        if (std::find(list.begin(), list.end(), y) == list.end()) list.push_back(y);
      }
    }
  }
  for (auto& [lemma, key] : lemma_keys) wn.senses[lemma].push_back(wanted[key]);
  return wn;
}

// The table: a header, the word records, the hash slots, the lists, the synsets and the string
// pool, each a run of 4-byte numbers (the pool last), in the machine's byte order.
constexpr char kMagic[8] = {'t', 'a', 'l', 'a', 'w', 'n', '3', '\0'};
struct Header {
  char magic[8];
  uint32_t word_count, slot_count, list_count, synset_count, pool_size;
};
// WordNet::Word::flags: two bits, then the NounKind of the first noun sense in three.
constexpr uint32_t kVerb = 1, kProper = 2, kNounKindShift = 2, kNounKindMask = 7;

uint32_t HashOf(std::string_view s) {  // FNV-1a
  uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

template <typename T>
void Append(std::string& out, const T* items, size_t n) {
  out.append(reinterpret_cast<const char*>(items), n * sizeof(T));
}

}  // namespace

struct WordNet::Word {
  uint32_t text, length, flags;
  uint32_t senses, sense_count;          // synset ids in lists_
  uint32_t antonyms, antonym_count;      // word numbers in lists_
  uint32_t bases, base_count;            // word numbers in lists_
  uint32_t attributes, attribute_count;  // word numbers in lists_
};

std::string CompileWordNet(const std::string& dir) {
  const TextLexicon text = ReadText(dir);
  if (text.senses.empty()) return {};
  // Every string the lexicon holds is a word with a number, in sorted order (deterministic).
  std::vector<std::string> names;
  for (const auto& [w, _] : text.senses) names.push_back(w);
  for (const auto& [w, list] : text.antonyms) {
    names.push_back(w);
    names.insert(names.end(), list.begin(), list.end());
  }
  for (const auto& [w, list] : text.exceptions) {
    names.push_back(w);
    names.insert(names.end(), list.begin(), list.end());
  }
  for (const auto& [w, list] : text.attributes) {
    names.push_back(w);
    names.insert(names.end(), list.begin(), list.end());
  }
  names.insert(names.end(), text.verbs.begin(), text.verbs.end());
  names.insert(names.end(), text.proper.begin(), text.proper.end());
  for (const auto& words : text.synset_words) names.insert(names.end(), words.begin(), words.end());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  auto number = [&names](const std::string& w) {
    return static_cast<uint32_t>(std::lower_bound(names.begin(), names.end(), w) - names.begin());
  };
  std::vector<WordNet::Word> words(names.size());
  std::vector<uint32_t> lists;
  std::string pool;
  auto list_of = [&](const std::vector<std::string>* from, uint32_t& at, uint32_t& count) {
    at = static_cast<uint32_t>(lists.size());
    count = from ? static_cast<uint32_t>(from->size()) : 0;
    if (from) {
      for (const std::string& w : *from) lists.push_back(number(w));
    }
  };
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& w = names[i];
    WordNet::Word& r = words[i];
    r.text = static_cast<uint32_t>(pool.size());
    r.length = static_cast<uint32_t>(w.size());
    pool += w;
    r.flags = (text.verbs.count(w) ? kVerb : 0) | (text.proper.count(w) ? kProper : 0);
    auto kind = text.noun_kind.find(w);
    if (kind != text.noun_kind.end()) {
      r.flags |= static_cast<uint32_t>(kind->second) << kNounKindShift;
    }
    r.senses = static_cast<uint32_t>(lists.size());
    auto senses = text.senses.find(w);
    r.sense_count = senses == text.senses.end() ? 0 : static_cast<uint32_t>(senses->second.size());
    if (senses != text.senses.end())
      lists.insert(lists.end(), senses->second.begin(), senses->second.end());
    auto antonyms = text.antonyms.find(w);
    list_of(antonyms == text.antonyms.end() ? nullptr : &antonyms->second, r.antonyms,
            r.antonym_count);
    auto bases = text.exceptions.find(w);
    list_of(bases == text.exceptions.end() ? nullptr : &bases->second, r.bases, r.base_count);
    auto attributes = text.attributes.find(w);
    list_of(attributes == text.attributes.end() ? nullptr : &attributes->second, r.attributes,
            r.attribute_count);
  }
  std::vector<uint32_t> synsets;
  for (const auto& synset : text.synset_words) {
    synsets.push_back(static_cast<uint32_t>(lists.size()));
    synsets.push_back(static_cast<uint32_t>(synset.size()));
    for (const std::string& w : synset) lists.push_back(number(w));
  }
  uint32_t slot_count = 1;
  while (slot_count < 2 * names.size()) slot_count *= 2;
  std::vector<uint32_t> slots(slot_count, 0);
  for (size_t i = 0; i < names.size(); ++i) {
    uint32_t at = HashOf(names[i]) & (slot_count - 1);
    while (slots[at] != 0) at = (at + 1) & (slot_count - 1);
    slots[at] = static_cast<uint32_t>(i + 1);
  }
  Header h{};
  std::copy(std::begin(kMagic), std::end(kMagic), h.magic);
  h.word_count = static_cast<uint32_t>(words.size());
  h.slot_count = slot_count;
  h.list_count = static_cast<uint32_t>(lists.size());
  h.synset_count = static_cast<uint32_t>(text.synset_words.size());
  h.pool_size = static_cast<uint32_t>(pool.size());
  std::string out;
  Append(out, &h, 1);
  Append(out, words.data(), words.size());
  Append(out, slots.data(), slots.size());
  Append(out, lists.data(), lists.size());
  Append(out, synsets.data(), synsets.size());
  out += pool;
  return out;
}

WordNet WordNet::View(std::string_view table) {
  WordNet wn;
  Header h;
  if (table.size() < sizeof h) return wn;
  std::memcpy(&h, table.data(), sizeof h);
  if (!std::equal(std::begin(kMagic), std::end(kMagic), h.magic)) return wn;
  const size_t need = sizeof h + size_t{h.word_count} * sizeof(Word) +
                      (size_t{h.slot_count} + h.list_count + 2 * size_t{h.synset_count}) * 4 +
                      h.pool_size;
  if (table.size() != need || h.slot_count == 0 || (h.slot_count & (h.slot_count - 1)) != 0) {
    return wn;  // not a table this build wrote
  }
  const char* at = table.data() + sizeof h;
  wn.words_ = reinterpret_cast<const Word*>(at);
  at += size_t{h.word_count} * sizeof(Word);
  wn.slots_ = reinterpret_cast<const uint32_t*>(at);
  at += size_t{h.slot_count} * 4;
  wn.lists_ = reinterpret_cast<const uint32_t*>(at);
  at += size_t{h.list_count} * 4;
  wn.synsets_ = reinterpret_cast<const uint32_t*>(at);
  at += 2 * size_t{h.synset_count} * 4;
  wn.pool_ = at;
  wn.word_count_ = h.word_count;
  wn.slot_mask_ = h.slot_count - 1;
  wn.synset_count_ = h.synset_count;
  return wn;
}

WordNet WordNet::Load(const std::string& dir) {
  auto table = std::make_shared<const std::string>(CompileWordNet(dir));
  WordNet wn = View(*table);
  wn.owned_ = std::move(table);  // the views point into the string's heap buffer, kept alive
  return wn;
}

std::string_view WordNet::Text(uint32_t word) const {
  return {pool_ + words_[word].text, words_[word].length};
}

const WordNet::Word* WordNet::Find(std::string_view word) const {
  if (word_count_ == 0) return nullptr;
  for (uint32_t at = HashOf(word) & slot_mask_; slots_[at] != 0; at = (at + 1) & slot_mask_) {
    if (Text(slots_[at] - 1) == word) return &words_[slots_[at] - 1];
  }
  return nullptr;
}

bool WordNet::HasSenses(std::string_view word) const {
  const Word* w = Find(word);
  return w != nullptr && w->sense_count > 0;
}

std::vector<std::string_view> WordNet::Synonyms(std::string_view lemma) const {
  std::vector<std::string_view> out;
  const Word* w = Find(lemma);
  if (w == nullptr) return out;
  for (uint32_t i = 0; i < w->sense_count; ++i) {
    const uint32_t synset = lists_[w->senses + i];
    const uint32_t* first = lists_ + synsets_[2 * synset];
    for (std::string_view s : WordList(this, first, synsets_[2 * synset + 1])) {
      if (s != lemma && s.find('_') == std::string_view::npos) out.push_back(s);
    }
  }
  return out;
}

WordList WordNet::Antonyms(std::string_view lemma) const {
  const Word* w = Find(lemma);
  return w == nullptr ? WordList() : WordList(this, lists_ + w->antonyms, w->antonym_count);
}

WordList WordNet::Attributes(std::string_view lemma) const {
  const Word* w = Find(lemma);
  return w == nullptr ? WordList() : WordList(this, lists_ + w->attributes, w->attribute_count);
}

WordList WordNet::BaseForms(std::string_view word) const {
  const Word* w = Find(word);
  return w == nullptr ? WordList() : WordList(this, lists_ + w->bases, w->base_count);
}

bool WordNet::IsVerb(std::string_view lemma) const {
  const Word* w = Find(lemma);
  return w != nullptr && (w->flags & kVerb) != 0;
}

bool WordNet::IsProperName(std::string_view lemma) const {
  const Word* w = Find(lemma);
  return w != nullptr && (w->flags & kProper) != 0;
}

namespace {
// Calls `take` with each singular a plural noun may have by WordNet's own detachment rules,
// the likeliest first ("bikes" -> "bike", "boxes" -> "box", "cities" -> "city"; not "tomas" ->
// "tom"), until it returns true; true when one did. One buffer: this runs for every word read.
template <typename Take>
bool AnySingular(std::string_view word, Take take) {
  static constexpr std::pair<std::string_view, std::string_view> kRules[] = {
      {"ses", "s"},   {"xes", "x"}, {"zes", "z"}, {"ches", "ch"},
      {"shes", "sh"}, {"ies", "y"}, {"s", ""}};
  std::string singular;
  for (auto [suffix, replacement] : kRules) {
    if (word.size() > suffix.size() + 1 && word.ends_with(suffix)) {
      singular.assign(word.substr(0, word.size() - suffix.size()));
      singular += replacement;
      if (take(std::string_view(singular))) return true;
    }
  }
  return false;
}
}  // namespace

bool WordNet::Knows(std::string_view word) const {
  if (HasSenses(word)) return true;
  for (std::string_view b : BaseForms(word)) {
    if (HasSenses(b)) return true;
  }
  return AnySingular(word, [this](std::string_view w) { return HasSenses(w); });
}

NounKind WordNet::FirstNounKind(std::string_view word) const {
  auto kind_of = [this](std::string_view w) {
    const Word* r = Find(w);
    return r == nullptr ? NounKind::kNone
                        : static_cast<NounKind>((r->flags >> kNounKindShift) & kNounKindMask);
  };
  NounKind kind = kind_of(word);
  if (kind == NounKind::kNone) {
    AnySingular(word, [&](std::string_view w) { return (kind = kind_of(w)) != NounKind::kNone; });
  }
  return kind;
}

}  // namespace tala::judges::offline
