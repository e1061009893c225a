#pragma once
// SentencePieces: the sentence encoder's tokenizer, a unigram vocabulary of 8,000 scored pieces
// (vocab.json: [["▁the", -3.57], ...], the first six reserved). A text is NFKC-normalised, each
// space becomes "▁" and one "▁" goes in front; the best split maximises the pieces' summed
// scores (Viterbi over code points). A code point that starts no piece is the unknown piece
// (id 0), and a run of unknowns is one id. Ties go as the model's own runtime takes them (the
// later candidate wins), so the ids match that runtime's exactly; the encoder's golden test checks
// them. Immutable once built: thread-safe.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tala/status.h"

namespace tala::judges::offline {

class SentencePieces {
 public:
  // kDataError naming the file for a vocabulary that is not a list of [piece, score] pairs.
  static Result<SentencePieces> FromJson(std::string_view json, const std::string& where);
  std::vector<int32_t> Encode(std::string_view text) const;
  size_t size() const { return scores_.size(); }

 private:
  struct Node {
    std::unordered_map<char32_t, int32_t> next;  // code point -> node
    int32_t piece = -1;                          // the piece ending here
  };
  std::vector<Node> trie_;
  std::vector<double> scores_;
  std::vector<int32_t> utf16_lengths_;  // each piece's length as its runtime counts it
};

}  // namespace tala::judges::offline
