#include "judges/offline/sentence_pieces.h"

#include <utf8proc.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

namespace tala::judges::offline {

namespace {

// The pieces below this id (unknown, <s>, </s>, three spares) are never matched in text.
constexpr int32_t kReserved = 6;
constexpr char32_t kSpaceMark = U'\u2581';  // "▁"

std::u32string CodePoints(std::string_view utf8) {
  std::u32string out;
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(utf8.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(utf8.size());
  while (left > 0) {
    utf8proc_int32_t c = 0;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &c);
    if (n <= 0) {  // invalid UTF-8: the replacement character, one byte consumed
      c = 0xFFFD;
      n = 1;
    }
    out.push_back(static_cast<char32_t>(c));
    p += n;
    left -= n;
  }
  return out;
}

}  // namespace

Result<SentencePieces> SentencePieces::FromJson(std::string_view json, const std::string& where) {
  nlohmann::json vocab = nlohmann::json::parse(json, nullptr, false);
  if (!vocab.is_array() || vocab.size() <= static_cast<size_t>(kReserved)) {
    return DataError({where, 0, 0, ""}, "not a list of [piece, score] pairs");
  }
  SentencePieces sp;
  sp.trie_.emplace_back();
  for (size_t i = 0; i < vocab.size(); ++i) {
    const nlohmann::json& e = vocab[i];
    // A few pieces carry a null score, which the model's runtime adds as 0.
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() ||
        !(e[1].is_number() || e[1].is_null())) {
      return DataError({where, 0, 0, "[" + std::to_string(i) + "]"}, "not a [piece, score] pair");
    }
    const std::string piece = e[0].get<std::string>();
    const std::u32string cps = CodePoints(piece);
    int32_t units = 0;
    for (char32_t c : cps) units += c > 0xFFFF ? 2 : 1;
    sp.scores_.push_back(e[1].is_null() ? 0.0 : e[1].get<double>());
    sp.utf16_lengths_.push_back(units);
    if (static_cast<int32_t>(i) < kReserved || cps.empty()) continue;
    int32_t node = 0;
    for (char32_t c : cps) {
      auto it = sp.trie_[node].next.find(c);
      if (it == sp.trie_[node].next.end()) {
        sp.trie_.emplace_back();
        const int32_t fresh = static_cast<int32_t>(sp.trie_.size() - 1);
        sp.trie_[node].next.emplace(c, fresh);
        node = fresh;
      } else {
        node = it->second;
      }
    }
    sp.trie_[node].piece = static_cast<int32_t>(i);
  }
  return sp;
}

std::vector<int32_t> SentencePieces::Encode(std::string_view text) const {
  utf8proc_uint8_t* normalized = utf8proc_NFKC(reinterpret_cast<const utf8proc_uint8_t*>(
      std::string(text).c_str()));  // NUL-terminated copy: utf8proc_NFKC reads to the NUL
  std::u32string symbols =
      normalized != nullptr ? CodePoints(reinterpret_cast<const char*>(normalized)) : U"";
  std::free(normalized);
  if (!symbols.empty()) {
    for (char32_t& c : symbols) {
      if (c == U' ') c = kSpaceMark;
    }
    symbols.insert(symbols.begin(), kSpaceMark);
  }
  const size_t n = symbols.size();
  // Candidates by end position, in the order the runtime visits them: by start, ascending, then
  // by length, ascending (a piece's prefixes come first along the trie).
  struct Candidate {
    size_t start;
    int32_t piece;  // 0: the unknown piece, one code point long
    size_t length;  // in code points
  };
  std::vector<std::vector<Candidate>> ending(n + 1);
  for (size_t i = 0; i < n; ++i) {
    int32_t node = 0;
    bool any = false;
    for (size_t j = i; j < n; ++j) {
      auto it = trie_[node].next.find(symbols[j]);
      if (it == trie_[node].next.end()) break;
      node = it->second;
      if (trie_[node].piece >= 0) {
        ending[j + 1].push_back({i, trie_[node].piece, j + 1 - i});
        any = true;
      }
    }
    if (!any) ending[i + 1].push_back({i, 0, 1});
  }
  std::vector<double> best(n + 1, 0.0);
  std::vector<int32_t> word(n + 1, 0);
  for (size_t end = 1; end <= n; ++end) {
    std::stable_sort(ending[end].begin(), ending[end].end(),
                     [](const Candidate& a, const Candidate& b) { return a.start < b.start; });
    for (const Candidate& c : ending[end]) {
      const double score = (c.piece == 0 ? 0.0 : scores_[c.piece]) + best[end - c.length];
      // An unset best is 0, as is a path of unknowns: either is overwritten (the runtime's rule).
      if (best[end] == 0 || score >= best[end]) {
        best[end] = score;
        word[end] = c.piece;
      }
    }
  }
  // Back from the end, each step the piece's length as the runtime counts it.
  std::vector<int32_t> backwards;
  for (int64_t at = static_cast<int64_t>(n); at > 0; at -= utf16_lengths_[word[at]]) {
    backwards.push_back(word[at]);
  }
  std::vector<int32_t> out;
  bool previous_unknown = false;
  for (int32_t id : backwards) {
    if (!(previous_unknown && id == 0)) out.push_back(id);
    previous_unknown = id == 0;
  }
  return {out.rbegin(), out.rend()};
}

}  // namespace tala::judges::offline
