#include "judges/offline/wordnet.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unordered_set>

namespace tala::judges::offline {

namespace {

// Senses kept per lemma and part of speech: WordNet lists senses by frequency, and the rare
// ones ("first" as "first base") would make unrelated words look like synonyms.
constexpr size_t kSensesKept = 2;
constexpr const char* kParts[] = {"noun", "verb", "adj", "adv"};

std::string CleanLemma(std::string w) {
  if (size_t paren = w.find('('); paren != std::string::npos) w.resize(paren);  // adj markers
  for (char& c : w) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return w;
}

uint64_t Key(int part, uint64_t offset) { return (offset << 2) | static_cast<uint64_t>(part); }

}  // namespace

WordNet WordNet::Load(const std::string& dir) {
  WordNet wn;
  // index.POS: lemma pos synset_cnt p_cnt [ptr]... sense_cnt tagsense_cnt offset...
  std::unordered_map<uint64_t, uint32_t> wanted;  // (part, offset) -> synset id
  std::vector<std::pair<std::string, uint64_t>> lemma_keys;
  for (int part = 0; part < 4; ++part) {
    std::ifstream in(dir + "/index." + kParts[part]);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == ' ') continue;  // license header
      std::istringstream ss(line);
      std::string lemma, pos;
      size_t synset_cnt = 0, p_cnt = 0;
      ss >> lemma >> pos >> synset_cnt >> p_cnt;
      if (pos == "v") wn.verbs_.insert(lemma);
      std::string skip;
      for (size_t i = 0; i < p_cnt + 2; ++i) ss >> skip;
      for (size_t i = 0; i < synset_cnt && i < kSensesKept; ++i) {
        uint64_t offset = 0;
        ss >> offset;
        uint64_t key = Key(part, offset);
        if (!wanted.count(key)) wanted.emplace(key, static_cast<uint32_t>(wanted.size()));
        lemma_keys.emplace_back(lemma, key);
      }
    }
  }
  if (wanted.empty()) return wn;
  wn.synset_words_.resize(wanted.size());
  // data.POS: offset lex_filenum ss_type w_cnt(hex) [word lex_id]... p_cnt [sym offset pos st]...
  for (int part = 0; part < 4; ++part) {
    std::ifstream in(dir + "/data." + kParts[part]);
    std::string line;
    std::unordered_map<uint64_t, std::vector<std::string>> all_words;  // for antonym targets
    std::vector<std::tuple<std::string, uint64_t, int>> antonym_ptrs;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == ' ') continue;
      std::istringstream ss(line);
      uint64_t offset;
      std::string lex, type, wcnt_hex;
      ss >> offset >> lex >> type >> wcnt_hex;
      size_t w_cnt = std::strtoul(wcnt_hex.c_str(), nullptr, 16);
      std::vector<std::string> words;
      for (size_t i = 0; i < w_cnt; ++i) {
        std::string w, lex_id;
        ss >> w >> lex_id;
        if (!w.empty() && w[0] >= 'A' && w[0] <= 'Z') wn.proper_.insert(CleanLemma(w));
        words.push_back(CleanLemma(w));
      }
      size_t p_cnt = 0;
      ss >> p_cnt;
      for (size_t i = 0; i < p_cnt; ++i) {
        std::string sym, target_pos, st;
        uint64_t target;
        ss >> sym >> target >> target_pos >> st;
        if (sym != "!") continue;
        size_t source = std::strtoul(st.substr(0, 2).c_str(), nullptr, 16);
        int target_word = static_cast<int>(std::strtoul(st.substr(2, 2).c_str(), nullptr, 16));
        if (source >= 1 && source <= words.size()) {
          antonym_ptrs.emplace_back(words[source - 1], target, target_word);
        }
      }
      auto it = wanted.find(Key(part, offset));
      if (it != wanted.end()) wn.synset_words_[it->second] = words;
      all_words.emplace(offset, std::move(words));
    }
    for (const auto& [word, target, target_word] : antonym_ptrs) {
      auto t = all_words.find(target);
      if (t == all_words.end() || target_word < 1 ||
          static_cast<size_t>(target_word) > t->second.size()) {
        continue;
      }
      wn.antonyms_[word].push_back(t->second[target_word - 1]);
    }
    // POS.exc: inflected base [base...]
    std::ifstream exc(dir + "/" + kParts[part] + ".exc");
    while (std::getline(exc, line)) {
      std::istringstream ss(line);
      std::string inflected, base;
      ss >> inflected;
      while (ss >> base) wn.exceptions_[inflected].push_back(base);
    }
  }
  for (auto& [lemma, key] : lemma_keys) wn.senses_[lemma].push_back(wanted[key]);
  return wn;
}

const WordNet& WordNet::Get() {
  static const WordNet kWordNet = [] {
    const char* dir = std::getenv("TALA_WORDNET_DIR");
    return Load(dir != nullptr ? dir : "/usr/share/wordnet");
  }();
  return kWordNet;
}

std::vector<std::string_view> WordNet::Synonyms(const std::string& lemma) const {
  std::vector<std::string_view> out;
  auto it = senses_.find(lemma);
  if (it == senses_.end()) return out;
  for (uint32_t synset : it->second) {
    for (const std::string& w : synset_words_[synset]) {
      if (w != lemma && w.find('_') == std::string::npos) out.push_back(w);
    }
  }
  return out;
}

const std::vector<std::string>* WordNet::Antonyms(const std::string& lemma) const {
  auto it = antonyms_.find(lemma);
  return it == antonyms_.end() ? nullptr : &it->second;
}

const std::vector<std::string>* WordNet::BaseForms(const std::string& word) const {
  auto it = exceptions_.find(word);
  return it == exceptions_.end() ? nullptr : &it->second;
}

bool WordNet::IsVerb(const std::string& lemma) const { return verbs_.count(lemma) > 0; }

bool WordNet::IsProperName(const std::string& lemma) const { return proper_.count(lemma) > 0; }

bool WordNet::Knows(const std::string& word) const {
  if (senses_.count(word) > 0) return true;
  if (const auto* bases = BaseForms(word)) {
    for (const std::string& b : *bases) {
      if (senses_.count(b) > 0) return true;
    }
  }
  // WordNet's own detachment rules for plural nouns: "bikes" -> "bike", "boxes" -> "box",
  // "cities" -> "city" (and not "tomas" -> "tom").
  static constexpr std::pair<std::string_view, std::string_view> kRules[] = {
      {"ses", "s"},   {"xes", "x"}, {"zes", "z"}, {"ches", "ch"},
      {"shes", "sh"}, {"ies", "y"}, {"s", ""}};
  for (auto [suffix, replacement] : kRules) {
    if (word.size() > suffix.size() + 1 && word.ends_with(suffix) &&
        senses_.count(word.substr(0, word.size() - suffix.size()) + std::string(replacement)) > 0) {
      return true;
    }
  }
  return false;
}

}  // namespace tala::judges::offline
