#include "metrics/string_distance.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>

namespace tala::metrics {

namespace {

bool IsAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// Bit masks of a pattern, ⌈m/64⌉ words per symbol: bit i of symbol c's mask is set when
// pattern[i] == c. The bit-parallel Levenshtein and Jaro below read one mask per text symbol.
// Symbols below 256 index a table that is kept zeroed between uses (only the words a pattern set
// are cleared afterwards, so a call costs O(m), not a 256-row memset); wider code points go to a
// small open-addressing table built per call.
template <typename Ch>
class PatternMasks {
 public:
  explicit PatternMasks(std::basic_string_view<Ch> pattern)
      : pattern_(pattern), blocks_((pattern.size() + 63) / 64) {
    Scratch& s = scratch();
    if (s.low.size() < 256 * blocks_) s.low.resize(256 * blocks_, 0);
    wide_keys_ = 0;
    for (size_t i = 0; i < pattern.size(); ++i) {
      uint64_t bit = 1ull << (i % 64);
      uint32_t c = Code(pattern[i]);
      if (c < 256) {
        s.low[c * blocks_ + i / 64] |= bit;
      } else {
        WideRow(c, true)[i / 64] |= bit;
      }
    }
  }
  ~PatternMasks() {
    Scratch& s = scratch();
    for (size_t i = 0; i < pattern_.size(); ++i) {
      uint32_t c = Code(pattern_[i]);
      if (c < 256) s.low[c * blocks_ + i / 64] = 0;
    }
  }
  PatternMasks(const PatternMasks&) = delete;
  PatternMasks& operator=(const PatternMasks&) = delete;

  size_t blocks() const { return blocks_; }
  // The mask of c (blocks() words), or nullptr when c is not in the pattern.
  const uint64_t* Get(Ch symbol) const {
    uint32_t c = Code(symbol);
    if (c < 256) return &scratch().low[c * blocks_];
    return wide_keys_ ? WideRow(c, false) : nullptr;
  }

 private:
  static uint32_t Code(Ch c) { return static_cast<std::make_unsigned_t<Ch>>(c); }
  struct Scratch {
    std::vector<uint64_t> low;  // 256 rows of blocks_ words, all zero between uses
    std::vector<uint32_t> wide_key;
    std::vector<uint64_t> wide_rows;
  };
  // Per thread: metrics are scored concurrently, and reusing the buffers avoids an allocation per
  // pair. One PatternMasks lives at a time per thread.
  static Scratch& scratch() {
    thread_local Scratch s;
    return s;
  }
  uint64_t* WideRow(uint32_t c, bool insert) const {
    Scratch& s = scratch();
    if (insert && wide_keys_ == 0) {
      size_t cap = 16;
      while (cap < 2 * pattern_.size()) cap <<= 1;
      s.wide_key.assign(cap, 0);
      s.wide_rows.assign(cap * blocks_, 0);
    }
    if (s.wide_key.empty()) return nullptr;
    const size_t mask = s.wide_key.size() - 1;
    for (size_t i = (c * 0x9E3779B1u) & mask;; i = (i + 1) & mask) {
      if (s.wide_key[i] == c) return &s.wide_rows[i * blocks_];
      if (s.wide_key[i] != 0) continue;
      if (!insert) return nullptr;
      s.wide_key[i] = c;
      ++wide_keys_;
      return &s.wide_rows[i * blocks_];
    }
  }

  std::basic_string_view<Ch> pattern_;
  size_t blocks_;
  mutable size_t wide_keys_ = 0;
};

// One text column at a time over all blocks of the pattern; returns the change of the score
// (the last row of the matrix). kBlocks > 0 fixes the block count at compile time, 0 reads it
// from the masks.
template <typename Ch, size_t kBlocks>
ptrdiff_t LevenshteinBlocks(std::basic_string_view<Ch> text, const PatternMasks<Ch>& masks,
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
  for (Ch c : text) {
    const uint64_t* row = masks.Get(c);
    static const uint64_t kZero[8] = {};
    if (row == nullptr && kBlocks) row = kZero;
    uint64_t hp_carry = 1, hn_carry = 0;  // the top row of the matrix grows by one per column
    uint64_t hp = 0, hn = 0;
    for (size_t blk = 0; blk < blocks; ++blk) {
      uint64_t e = row ? row[blk] : 0;
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

// Myers' bit-vector algorithm in Hyyrö's multi-block form: 64 cells of the dynamic programme per
// machine word, O(⌈m/64⌉·n). The pattern is the shorter string; a common prefix and suffix are
// removed first (they cost no edits).
template <typename Ch>
size_t Levenshtein(std::basic_string_view<Ch> a, std::basic_string_view<Ch> b) {
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
  const size_t m = pattern.size();
  if (m == 0) return text.size();
  PatternMasks<Ch> masks(pattern);
  size_t score = m;
  if (masks.blocks() == 1) {
    uint64_t pv = ~0ull, mv = 0;
    const uint64_t last = 1ull << (m - 1);
    for (Ch c : text) {
      const uint64_t* row = masks.Get(c);
      uint64_t e = row ? *row : 0;
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
      return score + LevenshteinBlocks<Ch, 2>(text, masks, m);
    case 3:
      return score + LevenshteinBlocks<Ch, 3>(text, masks, m);
    case 4:
      return score + LevenshteinBlocks<Ch, 4>(text, masks, m);
    case 5:
      return score + LevenshteinBlocks<Ch, 5>(text, masks, m);
    case 6:
      return score + LevenshteinBlocks<Ch, 6>(text, masks, m);
    case 7:
      return score + LevenshteinBlocks<Ch, 7>(text, masks, m);
    case 8:
      return score + LevenshteinBlocks<Ch, 8>(text, masks, m);
    default:
      return score + LevenshteinBlocks<Ch, 0>(text, masks, m);
  }
}

// Jaro similarity, bit-parallel: for each symbol of `a` in order, the first still-unmatched equal
// symbol of `b` inside the match window is the lowest set bit of (mask & window & ~matched) — the
// classic greedy matching, O(⌈|b|/64⌉) words per symbol of `a` instead of a scan of the window.
template <typename Ch>
double Jaro(std::basic_string_view<Ch> a, std::basic_string_view<Ch> b) {
  if (a.empty() && b.empty()) return 1.0;
  if (a.empty() || b.empty()) return 0.0;
  const size_t window = std::max<size_t>(std::max(a.size(), b.size()) / 2, 1) - 1;
  PatternMasks<Ch> masks(b);
  const size_t blocks = masks.blocks();
  thread_local std::vector<uint64_t> b_matched, a_matched;
  b_matched.assign(blocks, 0);
  a_matched.assign((a.size() + 63) / 64, 0);
  size_t matches = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const uint64_t* row = masks.Get(a[i]);
    if (row == nullptr) continue;
    const size_t lo = i > window ? i - window : 0, hi = std::min(b.size(), i + window + 1);
    if (lo >= hi) continue;
    for (size_t blk = lo / 64; blk <= (hi - 1) / 64; ++blk) {
      uint64_t candidates = row[blk] & ~b_matched[blk];
      if (blk == lo / 64) candidates &= ~0ull << (lo % 64);
      if (blk == (hi - 1) / 64 && hi % 64 != 0) candidates &= (1ull << (hi % 64)) - 1;
      if (candidates == 0) continue;
      b_matched[blk] |= candidates & (~candidates + 1);  // the lowest set bit
      a_matched[i / 64] |= 1ull << (i % 64);
      ++matches;
      break;
    }
  }
  if (matches == 0) return 0.0;
  // Transpositions: the matched symbols of a and of b, each in order, compared pairwise.
  size_t transpositions = 0, b_blk = 0;
  uint64_t b_bits = b_matched[0];
  for (size_t blk = 0; blk < a_matched.size(); ++blk) {
    for (uint64_t bits = a_matched[blk]; bits != 0; bits &= bits - 1) {
      size_t i = blk * 64 + std::countr_zero(bits);
      while (b_bits == 0) b_bits = b_matched[++b_blk];
      size_t j = b_blk * 64 + std::countr_zero(b_bits);
      b_bits &= b_bits - 1;
      transpositions += a[i] != b[j] ? 1 : 0;
    }
  }
  double m = static_cast<double>(matches);
  return (m / a.size() + m / b.size() + (m - transpositions / 2.0) / m) / 3.0;
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

size_t LevenshteinDistance(const std::vector<char32_t>& a, const std::vector<char32_t>& b) {
  return Levenshtein(View(a), View(b));
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
    const std::string& response = *s.response;
    const std::string& reference = *s.reference;
    switch (kind_) {
      case Kind::kSimilarity:
        return MetricValue::Number(StringSimilarity(response, reference, distance_));
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
                                    "reference (levenshtein, hamming, jaro, jaro_winkler)"};
  return kInfo;
}
const MetricInfo& ExactMatchInfo() {
  static const MetricInfo kInfo{.name = "exact_match",
                                .required_fields = kFields,
                                .summary = "1 when the response equals the reference"};
  return kInfo;
}
const MetricInfo& StringPresenceInfo() {
  static const MetricInfo kInfo{.name = "string_presence",
                                .required_fields = kFields,
                                .summary = "1 when the reference occurs in the response"};
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
