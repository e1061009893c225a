#include "metrics/string_distance.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/text/normalize.h"
#include "metrics/levenshtein_avx512.h"

namespace tala::metrics {

namespace {

// Eight bytes at a time: no byte has its top bit set.
bool IsAscii(std::string_view s) {
  uint64_t any = 0;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, s.data() + i, 8);
    any |= word;
  }
  for (; i < s.size(); ++i) any |= static_cast<unsigned char>(s[i]);
  return (any & 0x8080808080808080ull) == 0;
}

// Renames code points to dense ids: below 256 as they are, wider ones 256 and up, so per-symbol
// tables stay small. Writes the ids of `a` then `b` into `ids`; returns the id count.
uint32_t RenameCodePoints(std::u32string_view a, std::u32string_view b,
                          std::vector<uint32_t>& ids) {
  thread_local std::vector<uint32_t> keys, values;
  ids.resize(a.size() + b.size());
  size_t cap = 16;
  while (cap < 2 * ids.size()) cap <<= 1;
  keys.assign(cap, 0);
  values.resize(cap);
  uint32_t alphabet = 256;
  auto rename = [&](char32_t c) -> uint32_t {
    if (c < 256) return c;
    for (size_t i = (c * 0x9E3779B1u) & (cap - 1);; i = (i + 1) & (cap - 1)) {
      if (keys[i] == c) return values[i];
      if (keys[i] == 0) {
        keys[i] = c;
        return values[i] = alphabet++;
      }
    }
  };
  for (size_t i = 0; i < a.size(); ++i) ids[i] = rename(a[i]);
  for (size_t j = 0; j < b.size(); ++j) ids[a.size() + j] = rename(b[j]);
  return alphabet;
}

// Bit masks of a pattern: bit i of symbol c's row is set when pattern[i] == c. A row has `stride`
// words (at least ⌈m/64⌉; the AVX-512 kernel wants 8), one row per symbol id below `alphabet`,
// and one more row that stays zero. The table is kept zeroed between uses: only the words a
// pattern set are cleared afterwards, so a call costs O(m), not a memset of every row.
template <typename Symbol>
class PatternMasks {
 public:
  PatternMasks(const Symbol* pattern, size_t m, size_t alphabet, size_t stride = 0)
      : pattern_(pattern), m_(m), blocks_((m + 63) / 64), stride_(stride ? stride : blocks_) {
    AlignedWords& table = Table();
    if (table.size() < (alphabet + 1) * stride_) table.resize((alphabet + 1) * stride_, 0);
    rows_ = table.data();
    for (size_t i = 0; i < m; ++i) rows_[size_t{pattern[i]} * stride_ + i / 64] |= 1ull << (i % 64);
  }
  ~PatternMasks() {
    for (size_t i = 0; i < m_; ++i) rows_[size_t{pattern_[i]} * stride_ + i / 64] = 0;
  }
  PatternMasks(const PatternMasks&) = delete;
  PatternMasks& operator=(const PatternMasks&) = delete;

  size_t blocks() const { return blocks_; }
  const uint64_t* rows() const { return rows_; }
  const uint64_t* Get(Symbol symbol) const { return rows_ + size_t{symbol} * stride_; }

 private:
  // Per thread: metrics are scored concurrently, and reusing the table avoids an allocation per
  // pair. One PatternMasks lives at a time per thread.
  static AlignedWords& Table() {
    thread_local AlignedWords table;
    return table;
  }

  const Symbol* pattern_;
  size_t m_, blocks_, stride_;
  uint64_t* rows_;
};

// One text column at a time over all blocks of the pattern; returns the change of the score
// (the last row of the matrix). kBlocks > 0 fixes the block count at compile time, 0 reads it
// from the masks.
template <typename Symbol, size_t kBlocks>
ptrdiff_t LevenshteinBlocks(const Symbol* text, size_t n, const PatternMasks<Symbol>& masks,
                            size_t m) {
  const size_t blocks = kBlocks ? kBlocks : masks.blocks();
  thread_local std::vector<uint64_t> heap_pv, heap_mv;
  uint64_t fixed_pv[kBlocks ? kBlocks : 1], fixed_mv[kBlocks ? kBlocks : 1];
  uint64_t* pv = fixed_pv;
  uint64_t* mv = fixed_mv;
  if (kBlocks == 0) {
    heap_pv.resize(blocks);
    heap_mv.resize(blocks);
    pv = heap_pv.data();
    mv = heap_mv.data();
  }
  for (size_t blk = 0; blk < blocks; ++blk) {
    pv[blk] = ~0ull;
    mv[blk] = 0;
  }
  const uint64_t last = 1ull << ((m - 1) % 64);
  ptrdiff_t delta = 0;
  for (size_t j = 0; j < n; ++j) {
    const uint64_t* row = masks.Get(text[j]);
    uint64_t hp_carry = 1, hn_carry = 0;  // the top row of the matrix grows by one per column
    uint64_t hp = 0, hn = 0;
    for (size_t blk = 0; blk < blocks; ++blk) {
      uint64_t e = row[blk];
      uint64_t p = pv[blk], n = mv[blk];
      uint64_t x = e | n;
      e |= hn_carry;
      uint64_t d0 = (((e & p) + p) ^ p) | e | n;
      hp = n | ~(d0 | p);
      hn = p & d0;
      uint64_t hp_out = hp >> 63, hn_out = hn >> 63;
      uint64_t hp_s = (hp << 1) | hp_carry, hn_s = (hn << 1) | hn_carry;
      hp_carry = hp_out;
      hn_carry = hn_out;
      pv[blk] = hn_s | ~(x | hp_s);
      mv[blk] = hp_s & x;
    }
    delta += (hp & last) ? 1 : 0;
    delta -= (hn & last) ? 1 : 0;
  }
  return delta;
}

// kAuto and kAvx512 both take the AVX-512 kernel where this CPU has it.
bool UseAvx512(LevenshteinKernel kernel) {
  return kernel != LevenshteinKernel::kScalar && HasAvx512Levenshtein();
}

// Myers' bit-vector algorithm in Hyyrö's multi-block form: 64 cells of the dynamic programme per
// machine word, O(⌈m/64⌉·n). Symbols are ids below `alphabet`; 0 < m <= n.
template <typename Symbol>
size_t LevenshteinOnSymbols(const Symbol* text, size_t n, const Symbol* pattern, size_t m,
                            uint32_t alphabet, LevenshteinKernel kernel) {
  if (m > 64 && m <= 512 && UseAvx512(kernel)) {
    if constexpr (sizeof(Symbol) == 1) {
      return LevenshteinAvx512(text, n, pattern, m);  // builds its rows by byte comparisons
    } else {
      PatternMasks<Symbol> masks(pattern, m, alphabet, 8);
      return LevenshteinAvx512(masks.rows(), pattern, text, n, m, alphabet);
    }
  }
  PatternMasks<Symbol> masks(pattern, m, alphabet);
  size_t score = m;
  if (masks.blocks() == 1) {
    uint64_t pv = ~0ull, mv = 0;
    const uint64_t last = 1ull << (m - 1);
    for (size_t j = 0; j < n; ++j) {
      uint64_t e = *masks.Get(text[j]);
      uint64_t x = e | mv;
      uint64_t d0 = (((e & pv) + pv) ^ pv) | x;
      uint64_t hp = mv | ~(d0 | pv);
      uint64_t hn = pv & d0;
      score += (hp & last) ? 1 : 0;
      score -= (hn & last) ? 1 : 0;
      hp = (hp << 1) | 1;
      hn <<= 1;
      pv = hn | ~(x | hp);
      mv = hp & x;
    }
    return score;
  }
  switch (masks.blocks()) {  // a fixed block count keeps the state in registers
    case 2:
      return score + LevenshteinBlocks<Symbol, 2>(text, n, masks, m);
    case 3:
      return score + LevenshteinBlocks<Symbol, 3>(text, n, masks, m);
    case 4:
      return score + LevenshteinBlocks<Symbol, 4>(text, n, masks, m);
    case 5:
      return score + LevenshteinBlocks<Symbol, 5>(text, n, masks, m);
    case 6:
      return score + LevenshteinBlocks<Symbol, 6>(text, n, masks, m);
    case 7:
      return score + LevenshteinBlocks<Symbol, 7>(text, n, masks, m);
    case 8:
      return score + LevenshteinBlocks<Symbol, 8>(text, n, masks, m);
    default:
      return score + LevenshteinBlocks<Symbol, 0>(text, n, masks, m);
  }
}

// The pattern is the shorter string; a common prefix and suffix are removed first (they cost no
// edits). Bytes are their own ids; code points are renamed to dense ids.
template <typename Ch>
size_t Levenshtein(std::basic_string_view<Ch> a, std::basic_string_view<Ch> b,
                   LevenshteinKernel kernel = LevenshteinKernel::kAuto) {
  while (!a.empty() && !b.empty() && a.front() == b.front()) {
    a.remove_prefix(1);
    b.remove_prefix(1);
  }
  while (!a.empty() && !b.empty() && a.back() == b.back()) {
    a.remove_suffix(1);
    b.remove_suffix(1);
  }
  if (a.size() < b.size()) std::swap(a, b);
  const std::basic_string_view<Ch> text = a, pattern = b;
  const size_t n = text.size(), m = pattern.size();
  if (m == 0) return n;
  if constexpr (std::is_same_v<Ch, char>) {
    return LevenshteinOnSymbols(reinterpret_cast<const uint8_t*>(text.data()), n,
                                reinterpret_cast<const uint8_t*>(pattern.data()), m, 256, kernel);
  } else {
    thread_local std::vector<uint32_t> ids;
    const uint32_t alphabet = RenameCodePoints(text, pattern, ids);
    return LevenshteinOnSymbols(ids.data(), n, ids.data() + n, m, alphabet, kernel);
  }
}

// Jaro similarity. The textbook matching takes each symbol of `a` in order and pairs it with the
// first still-unmatched equal symbol of `b` inside the match window. For one symbol the chosen
// positions of `b` only ever increase, and an unmatched position left behind a chosen one has
// fallen out of the window for good (it lay before the window, or it would have been chosen).
// So one cursor per symbol, walking forward through that symbol's occurrences in `b` (a linked
// list of next occurrences), finds exactly the textbook matches in O(|a| + |b|), with no scan of
// the window and no data-dependent branch on the common path. Symbols are ids below `alphabet`.
template <typename Id>
double JaroOnIds(const Id* a, size_t na, const Id* b, size_t nb, size_t alphabet) {
  if (na == 0 && nb == 0) return 1.0;
  if (na == 0 || nb == 0) return 0.0;
  constexpr uint32_t kNone = ~0u;  // past every window
  const size_t window = std::max<size_t>(std::max(na, nb) / 2, 1) - 1;
  thread_local std::vector<uint32_t> cursor_buf, next_buf;
  thread_local std::vector<uint8_t> matched_buf;
  thread_local std::vector<Id> a_seq_buf, b_seq_buf;
  if (cursor_buf.size() < alphabet) cursor_buf.resize(alphabet);
  if (next_buf.size() < nb + 1) next_buf.resize(nb + 1);
  if (matched_buf.size() < nb + 1) matched_buf.resize(nb + 1);
  if (a_seq_buf.size() < na) a_seq_buf.resize(na);
  if (b_seq_buf.size() < nb) b_seq_buf.resize(nb);
  uint32_t* cursor = cursor_buf.data();   // per symbol: its next usable occurrence in b
  uint32_t* next = next_buf.data();       // per position of b: the next occurrence of its symbol
  uint8_t* matched = matched_buf.data();  // per position of b, plus a dummy slot at nb
  Id* a_seq = a_seq_buf.data();           // the matched symbols of a, in order
  Id* b_seq = b_seq_buf.data();           // the matched symbols of b, in order
  std::fill_n(cursor, alphabet, kNone);
  std::fill_n(matched, nb + 1, 0);
  for (size_t j = nb; j-- > 0;) {
    next[j] = cursor[b[j]];
    cursor[b[j]] = static_cast<uint32_t>(j);
  }
  next[nb] = kNone;
  size_t matches = 0;
  for (size_t i = 0; i < na; ++i) {
    const size_t lo = i > window ? i - window : 0, hi = i + window + 1;
    const Id c = a[i];
    uint32_t at = cursor[c];
    while (at < lo) at = next[at];  // occurrences that fell out of the window
    const bool hit = at < hi;
    const size_t slot = hit ? at : nb;
    matched[slot] = 1;
    cursor[c] = hit ? next[slot] : at;
    a_seq[matches] = c;
    matches += hit;
  }
  if (matches == 0) return 0.0;
  // Transpositions: the matched symbols of a and of b, each in order, compared pairwise.
  size_t k = 0;
  for (size_t j = 0; j < nb; ++j) {
    b_seq[k] = b[j];
    k += matched[j];
  }
  size_t out_of_order = 0;
  for (size_t t = 0; t < matches; ++t) out_of_order += a_seq[t] != b_seq[t];
  // Half the out-of-order matches, rounded down, as rapidfuzz (which Ragas calls) counts them;
  // the textbook keeps the half (0.5 for three out of order).
  const double transpositions = static_cast<double>(out_of_order / 2);
  double m = static_cast<double>(matches);
  return (m / na + m / nb + (m - transpositions) / m) / 3.0;
}

double Jaro(std::string_view a, std::string_view b) {
  return JaroOnIds(reinterpret_cast<const uint8_t*>(a.data()), a.size(),
                   reinterpret_cast<const uint8_t*>(b.data()), b.size(), 256);
}

// Code points are renamed to dense ids first, so the per-symbol cursors fit a small table.
double Jaro(std::u32string_view a, std::u32string_view b) {
  thread_local std::vector<uint32_t> ids;
  const uint32_t alphabet = RenameCodePoints(a, b, ids);
  return JaroOnIds(ids.data(), a.size(), ids.data() + a.size(), b.size(), alphabet);
}

template <typename Ch>
double Similarity(std::basic_string_view<Ch> a, std::basic_string_view<Ch> b, Distance d) {
  const size_t longest = std::max(a.size(), b.size());
  switch (d) {
    case Distance::kLevenshtein:
      return longest == 0 ? 1.0 : 1.0 - static_cast<double>(Levenshtein(a, b)) / longest;
    case Distance::kHamming: {
      if (longest == 0) return 1.0;
      const size_t common = std::min(a.size(), b.size());
      size_t mismatches = longest - common;
      for (size_t i = 0; i < common; ++i) mismatches += a[i] != b[i] ? 1 : 0;
      return 1.0 - static_cast<double>(mismatches) / longest;
    }
    case Distance::kJaro:
      return Jaro(a, b);
    case Distance::kJaroWinkler: {
      double j = Jaro(a, b);
      // Winkler's prefix bonus only above Jaro 0.7, his boost threshold (rapidfuzz applies it).
      if (j <= 0.7) return j;
      size_t prefix = 0;
      while (prefix < 4 && prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix])
        ++prefix;
      return j + prefix * 0.1 * (1.0 - j);
    }
  }
  return 0.0;
}

std::u32string_view View(const std::vector<char32_t>& v) { return {v.data(), v.size()}; }

}  // namespace

std::vector<char32_t> CodePoints(std::string_view s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  if (IsAscii(s)) {
    out.assign(s.begin(), s.end());  // ASCII: one code point a byte
    return out;
  }
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < len && i + k < s.size(); ++k) cp = (cp << 6) | (s[i + k] & 0x3F);
    out.push_back(cp);
    i += len;
  }
  return out;
}

size_t LevenshteinDistance(const std::vector<char32_t>& a, const std::vector<char32_t>& b,
                           LevenshteinKernel kernel) {
  return Levenshtein(View(a), View(b), kernel);
}

size_t LevenshteinDistance(std::string_view a, std::string_view b, LevenshteinKernel kernel) {
  if (IsAscii(a) && IsAscii(b)) return Levenshtein(a, b, kernel);
  return LevenshteinDistance(CodePoints(a), CodePoints(b), kernel);
}

double JaroSimilarity(const std::vector<char32_t>& a, const std::vector<char32_t>& b) {
  return Jaro(View(a), View(b));
}

double StringSimilarity(const std::vector<char32_t>& a, const std::vector<char32_t>& b,
                        Distance d) {
  return Similarity(View(a), View(b), d);
}

double StringSimilarity(std::string_view a, std::string_view b, Distance d) {
  // ASCII text (the common case) is compared byte by byte with no conversion; anything else as
  // code points.
  if (IsAscii(a) && IsAscii(b)) return Similarity(a, b, d);
  return StringSimilarity(CodePoints(a), CodePoints(b), d);
}

Result<Distance> ParseDistance(const std::string& metric, const MetricOptions& options) {
  auto it = options.find("distance");
  if (it == options.end() || it->second == "levenshtein") return Distance::kLevenshtein;
  if (it->second == "hamming") return Distance::kHamming;
  if (it->second == "jaro") return Distance::kJaro;
  if (it->second == "jaro_winkler") return Distance::kJaroWinkler;
  return InvalidArgument("metric " + metric +
                         ": distance must be levenshtein, hamming, jaro or "
                         "jaro_winkler, got " +
                         it->second);
}

namespace {
constexpr FieldSet kFields = Field::kResponse | Field::kReference;

enum class Kind { kSimilarity, kExact, kPresence };

class StringMetric : public MetricBase {
 public:
  StringMetric(const MetricInfo& info, MetricOptions options, Kind kind, Distance d)
      : MetricBase(info, std::move(options)), kind_(kind), distance_(d) {}
  MetricValue Score(const Sample& s, const Verdicts&) const override {
    // Compared in canonical form (F6): the same text typed with a precomposed "é" and with "e"
    // plus a combining accent is equal, as any reader sees it. ASCII text is unchanged, and so
    // is every value Ragas' own test cases give.
    const std::string response = text::Canonical(*s.response);
    const std::string reference = text::Canonical(*s.reference);
    switch (kind_) {
      case Kind::kSimilarity:
        // Reference first, as Ragas passes them: Jaro's greedy matching reads from its first
        // string.
        return MetricValue::Number(StringSimilarity(reference, response, distance_));
      case Kind::kExact:
        return MetricValue::Number(response == reference ? 1.0 : 0.0);
      case Kind::kPresence:
        return MetricValue::Number(response.find(reference) != std::string::npos ? 1.0 : 0.0);
    }
    return MetricValue::Undefined("unknown string metric");
  }

 private:
  Kind kind_;
  Distance distance_;
};
}  // namespace

const MetricInfo& StringSimilarityInfo() {
  static const MetricInfo kInfo{.name = "non_llm_string_similarity",
                                .aliases = {"string_similarity"},
                                .required_fields = kFields,
                                .summary =
                                    "1 - normalised string distance between response and "
                                    "reference (levenshtein, hamming, jaro, jaro_winkler)",
                                // 2: Jaro and Jaro-Winkler as rapidfuzz computes them;
                                // 3: texts compared in canonical form (NFC)
                                .version = "3"};
  return kInfo;
}
const MetricInfo& ExactMatchInfo() {
  static const MetricInfo kInfo{.name = "exact_match",
                                .required_fields = kFields,
                                .summary = "1 when the response equals the reference",
                                .version = "2"};  // 2: canonical form (NFC)
  return kInfo;
}
const MetricInfo& StringPresenceInfo() {
  static const MetricInfo kInfo{.name = "string_presence",
                                .required_fields = kFields,
                                .summary = "1 when the reference occurs in the response",
                                .version = "2"};  // 2: canonical form (NFC)
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeStringSimilarity(const MetricOptions& o) {
  const MetricInfo& info = StringSimilarityInfo();
  TALA_RETURN_IF_ERROR(CheckOptionNames(info.name, o, {"distance"}));
  TALA_ASSIGN_OR_RETURN(Distance d, ParseDistance(info.name, o));
  return std::unique_ptr<Metric>(new StringMetric(info, o, Kind::kSimilarity, d));
}
Result<std::unique_ptr<Metric>> MakeExactMatch(const MetricOptions& o) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(ExactMatchInfo().name, o, {}));
  return std::unique_ptr<Metric>(
      new StringMetric(ExactMatchInfo(), o, Kind::kExact, Distance::kLevenshtein));
}
Result<std::unique_ptr<Metric>> MakeStringPresence(const MetricOptions& o) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(StringPresenceInfo().name, o, {}));
  return std::unique_ptr<Metric>(
      new StringMetric(StringPresenceInfo(), o, Kind::kPresence, Distance::kLevenshtein));
}

}  // namespace tala::metrics
