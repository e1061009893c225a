#pragma once
// WordNet 3.0 lexicon from Debian's wordnet-base files (/usr/share/wordnet, or $TALA_WORDNET_DIR):
// synonyms from each word's most frequent senses, antonyms, and irregular inflections
// ("wrote" -> "write"). Loaded once per process on first use; immutable after: thread-safe.

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tala::judges::offline {

class WordNet {
 public:
  // The process-wide lexicon (loaded on the first call). Empty when the files are missing.
  static const WordNet& Get();
  // Loads from `dir`; an empty lexicon when the files cannot be read.
  static WordNet Load(const std::string& dir);

  bool empty() const { return senses_.empty(); }
  // Single-word synonyms of a folded lemma over its first senses (the lemma itself excluded).
  std::vector<std::string_view> Synonyms(const std::string& lemma) const;
  // Antonyms of a folded lemma ("alive" -> "dead").
  const std::vector<std::string>* Antonyms(const std::string& lemma) const;
  // Base forms of an irregular inflection ("born" -> "bear"); nullptr when regular.
  const std::vector<std::string>* BaseForms(const std::string& word) const;
  size_t synset_count() const { return synset_words_.size(); }
  // True when the folded lemma can be a verb ("supply", "report"; not "battery").
  bool IsVerb(const std::string& lemma) const;
  // True when WordNet writes the folded lemma with a capital somewhere ("paris", "bastille").
  bool IsProperName(const std::string& lemma) const;
  // True when the folded word, or its singular or irregular base, is a WordNet lemma.
  bool Knows(const std::string& word) const;

 private:
  std::unordered_map<std::string, std::vector<uint32_t>> senses_;  // lemma -> synset ids
  std::vector<std::vector<std::string>> synset_words_;
  std::unordered_map<std::string, std::vector<std::string>> antonyms_;
  std::unordered_map<std::string, std::vector<std::string>> exceptions_;
  std::unordered_set<std::string> verbs_;
  std::unordered_set<std::string> proper_;
};

}  // namespace tala::judges::offline
