#include "metrics/string_distance.h"

#include <algorithm>

namespace tala::metrics {

std::vector<char32_t> CodePoints(std::string_view s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  if (std::all_of(s.begin(), s.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
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
  // Myers' bit-vector algorithm in Hyyrö's multi-block form: 64 cells of the dynamic programme
  // per machine word, O(⌈m/64⌉·n). The pattern is the shorter string.
  const auto& text = a.size() < b.size() ? b : a;
  const auto& pattern = a.size() < b.size() ? a : b;
  const size_t m = pattern.size();
  if (m == 0) return text.size();
  const size_t blocks = (m + 63) / 64;
  // Match masks: ASCII in a table, other code points in a small sorted list.
  thread_local std::vector<uint64_t> ascii;  // reused across calls: no allocation per pair
  ascii.assign(128 * blocks, 0);
  std::vector<std::pair<char32_t, std::vector<uint64_t>>> other;
  for (size_t i = 0; i < m; ++i) {
    char32_t c = pattern[i];
    uint64_t bit = 1ull << (i % 64);
    if (c < 128) {
      ascii[c * blocks + i / 64] |= bit;
      continue;
    }
    auto it = std::find_if(other.begin(), other.end(), [c](const auto& p) { return p.first == c; });
    if (it == other.end()) {
      other.emplace_back(c, std::vector<uint64_t>(blocks, 0));
      it = other.end() - 1;
    }
    it->second[i / 64] |= bit;
  }
  static const std::vector<uint64_t> kNone;
  thread_local std::vector<uint64_t> pv, mv;
  pv.assign(blocks, ~0ull);
  mv.assign(blocks, 0);
  const uint64_t last = 1ull << ((m - 1) % 64);
  size_t score = m;
  for (char32_t c : text) {
    const uint64_t* eq = nullptr;
    if (c < 128) {
      eq = &ascii[c * blocks];
    } else {
      auto it =
          std::find_if(other.begin(), other.end(), [c](const auto& p) { return p.first == c; });
      eq = it == other.end() ? nullptr : it->second.data();
    }
    uint64_t hp_carry = 1, hn_carry = 0;  // the top row of the matrix grows by one per column
    for (size_t blk = 0; blk < blocks; ++blk) {
      uint64_t e = eq ? eq[blk] : 0;
      uint64_t p = pv[blk], n = mv[blk];
      uint64_t x = e | n;
      e |= hn_carry;
      uint64_t d0 = (((e & p) + p) ^ p) | e | n;
      uint64_t hp = n | ~(d0 | p);
      uint64_t hn = p & d0;
      if (blk == blocks - 1) {
        if (hp & last) ++score;
        if (hn & last) --score;
      }
      uint64_t hp_out = hp >> 63, hn_out = hn >> 63;
      hp = (hp << 1) | hp_carry;
      hn = (hn << 1) | hn_carry;
      hp_carry = hp_out;
      hn_carry = hn_out;
      pv[blk] = hn | ~(x | hp);
      mv[blk] = hp & x;
    }
  }
  return score;
}

namespace {
double Jaro(const std::vector<char32_t>& a, const std::vector<char32_t>& b) {
  if (a.empty() && b.empty()) return 1.0;
  if (a.empty() || b.empty()) return 0.0;
  const size_t window = std::max<size_t>(std::max(a.size(), b.size()) / 2, 1) - 1;
  std::vector<bool> a_match(a.size()), b_match(b.size());
  size_t matches = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    size_t lo = i > window ? i - window : 0, hi = std::min(b.size(), i + window + 1);
    for (size_t j = lo; j < hi; ++j) {
      if (b_match[j] || a[i] != b[j]) continue;
      a_match[i] = b_match[j] = true;
      ++matches;
      break;
    }
  }
  if (matches == 0) return 0.0;
  size_t transpositions = 0, j = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a_match[i]) continue;
    while (!b_match[j]) ++j;
    transpositions += a[i] != b[j] ? 1 : 0;
    ++j;
  }
  double m = static_cast<double>(matches);
  return (m / a.size() + m / b.size() + (m - transpositions / 2.0) / m) / 3.0;
}
}  // namespace

double StringSimilarity(const std::vector<char32_t>& a, const std::vector<char32_t>& b,
                        Distance d) {
  const size_t longest = std::max(a.size(), b.size());
  switch (d) {
    case Distance::kLevenshtein:
      return longest == 0 ? 1.0 : 1.0 - static_cast<double>(LevenshteinDistance(a, b)) / longest;
    case Distance::kHamming: {
      if (longest == 0) return 1.0;
      size_t mismatches = longest - std::min(a.size(), b.size());
      for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) mismatches += a[i] != b[i];
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

double StringSimilarity(std::string_view a, std::string_view b, Distance d) {
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
