#pragma once
// WordNet 3.0 lexicon from Debian's wordnet-base files (/usr/share/wordnet): synonyms from each
// word's most frequent senses, antonyms, irregular inflections ("wrote" -> "write") and what
// kind of thing a noun's first sense names.
//
// The lexicon is one flat table (a string pool, a word table with an open-addressing hash, and
// lists of word and synset numbers), so that it costs nothing to start: the build compiles the
// text files into that table once (CompileWordNet, run by tools/compile_wordnet) and links it
// into the program, where the operating system maps it on first touch and processes share it.
// $TALA_WORDNET_DIR, or a build made without the files, reads the text files instead at first
// use. Immutable after construction: thread-safe.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tala::judges::offline {

class WordNet;

// What a noun's most frequent sense names, by WordNet's lexicographer file: a person
// ("politician", "actor"), a place ("county", "canada"), a group ("band", "company"), a time, an
// artifact ("stadium"), or something else. kNone: not a noun WordNet knows.
enum class NounKind : uint8_t { kNone, kPerson, kPlace, kGroup, kTime, kArtifact, kOther };

// Some of the lexicon's words (a synset's, a word's antonyms or base forms), in WordNet's order.
class WordList {
 public:
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::string_view;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::string_view;
    iterator() = default;
    iterator(const WordNet* wn, const uint32_t* at) : wn_(wn), at_(at) {}
    std::string_view operator*() const;
    iterator& operator++() {
      ++at_;
      return *this;
    }
    iterator operator++(int) {
      iterator before = *this;
      ++at_;
      return before;
    }
    bool operator==(const iterator& o) const { return at_ == o.at_; }

   private:
    const WordNet* wn_ = nullptr;
    const uint32_t* at_ = nullptr;
  };
  WordList() = default;
  WordList(const WordNet* wn, const uint32_t* words, uint32_t size)
      : wn_(wn), words_(words), size_(size) {}
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  std::string_view operator[](size_t i) const { return *iterator(wn_, words_ + i); }
  iterator begin() const { return {wn_, words_}; }
  iterator end() const { return {wn_, words_ + size_}; }

 private:
  const WordNet* wn_ = nullptr;
  const uint32_t* words_ = nullptr;
  uint32_t size_ = 0;
};

// The table's bytes from the text files in `dir`; empty when they cannot be read.
std::string CompileWordNet(const std::string& dir);

class WordNet {
 public:
  // The process-wide lexicon: the table linked into the program, or the text files of
  // $TALA_WORDNET_DIR (or /usr/share/wordnet when the build had none). Empty when neither is.
  static const WordNet& Get();
  // Reads the text files in `dir`; an empty lexicon when they cannot be read.
  static WordNet Load(const std::string& dir);
  // A lexicon over a compiled table that outlives it (the one linked into the program); an empty
  // lexicon when `table` is not one.
  static WordNet View(std::string_view table);

  bool empty() const { return word_count_ == 0; }
  // Single-word synonyms of a folded lemma over its first senses (the lemma itself excluded).
  std::vector<std::string_view> Synonyms(std::string_view lemma) const;
  // Antonyms of a folded lemma ("alive" -> "dead"); empty when it has none.
  WordList Antonyms(std::string_view lemma) const;
  // Base forms of an irregular inflection ("born" -> "bear"); empty when regular.
  WordList BaseForms(std::string_view word) const;
  // The words an adjective values the attribute of, or the adjectives that value a noun's
  // attribute (WordNet's "=" pointers: "far" / "distance", "tall" / "height", "heavy" /
  // "weight"), single words only.
  WordList Attributes(std::string_view lemma) const;
  size_t synset_count() const { return synset_count_; }
  // True when the folded lemma can be a verb ("supply", "report"; not "battery").
  bool IsVerb(std::string_view lemma) const;
  // True when WordNet writes the folded lemma with a capital somewhere ("paris", "bastille").
  bool IsProperName(std::string_view lemma) const;
  // True when the folded word, or its singular or irregular base, is a WordNet lemma.
  bool Knows(std::string_view word) const;
  // The kind of the folded word's (or its singular's) most frequent noun sense.
  NounKind FirstNounKind(std::string_view word) const;

  struct Word;  // the table's record of one word (wordnet.cc)

 private:
  friend class WordList;
  const Word* Find(std::string_view word) const;
  std::string_view Text(uint32_t word) const;
  bool HasSenses(std::string_view word) const;

  std::shared_ptr<const std::string> owned_;  // the table, when this lexicon compiled it
  const Word* words_ = nullptr;
  const uint32_t* slots_ = nullptr;    // hash slots: word number + 1, 0 when free
  const uint32_t* lists_ = nullptr;    // word and synset numbers the records point into
  const uint32_t* synsets_ = nullptr;  // per synset: offset and size of its words in lists_
  const char* pool_ = nullptr;
  uint32_t word_count_ = 0, slot_mask_ = 0, synset_count_ = 0;
};

inline std::string_view WordList::iterator::operator*() const { return wn_->Text(*at_); }

}  // namespace tala::judges::offline
