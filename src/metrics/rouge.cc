#include "metrics/rouge.h"

#include <algorithm>
#include <bit>

#include "core/text/porter_stemmer.h"
#include "metrics/ngram_counts.h"

namespace tala::metrics {

namespace {
bool IsFolded(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
char Fold(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Calls fn(token) for each lower-cased [a-z0-9] run of `text`; the view is valid during the call.
template <typename Fn>
void ForEachFoldedToken(std::string_view text, Fn fn) {
  thread_local std::string cur;
  cur.clear();
  for (char c : text) {
    char l = Fold(c);
    if (IsFolded(l)) {
      cur += l;
    } else if (!cur.empty()) {
      fn(std::string_view(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) fn(std::string_view(cur));
}

// Token hash -> hash of its stem, per thread: a row then costs a probe per token instead of a
// string-keyed lookup. Open addressing, load <= 1/2; past 2^20 entries it starts over (bounded
// memory on endless vocabularies). Key 0 marks a free slot, so a token hashing to 0 is stored as 1.
class StemHashCache {
 public:
  uint64_t StemHash(std::string_view token) {
    uint64_t key = HashToken(token);
    key = key == 0 ? 1 : key;
    if (slots_.empty() || 2 * (size_ + 1) > slots_.size()) Grow();
    size_t i = Home(key);
    while (slots_[i].first != 0 && slots_[i].first != key) i = (i + 1) & (slots_.size() - 1);
    if (slots_[i].first == 0) {
      slots_[i] = {key, HashToken(text::PorterStemNltk(token))};
      ++size_;
    }
    return slots_[i].second;
  }

 private:
  size_t Home(uint64_t key) const { return (key ^ (key >> 29)) & (slots_.size() - 1); }
  void Grow() {
    constexpr size_t kMaxSlots = size_t{1} << 21;
    std::vector<std::pair<uint64_t, uint64_t>> old;
    old.swap(slots_);
    size_ = 0;
    slots_.assign(old.empty() ? 4096 : std::min(old.size() * 2, kMaxSlots), {0, 0});
    if (slots_.size() == old.size()) return;  // at the cap: start over empty
    for (const auto& [key, value] : old) {
      if (key == 0) continue;
      size_t i = Home(key);
      while (slots_[i].first != 0) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = {key, value};
      ++size_;
    }
  }
  std::vector<std::pair<uint64_t, uint64_t>> slots_;
  size_t size_ = 0;
};

// The token hashes of a text, stemmed as RougeTokens stems, into `out`.
void RougeTokenHashes(std::string_view text, bool stem, std::vector<uint64_t>& out) {
  thread_local StemHashCache stems;
  out.clear();
  ForEachFoldedToken(text, [&](std::string_view t) {
    out.push_back(stem && t.size() > 3 ? stems.StemHash(t) : HashToken(t));
  });
}
}  // namespace

std::vector<std::string> RougeTokens(std::string_view text, bool stem) {
  std::vector<std::string> out;
  ForEachFoldedToken(text, [&](std::string_view t) {
    out.push_back(stem && t.size() > 3 ? text::PorterStemNltk(t) : std::string(t));
  });
  return out;
}

size_t LcsLength(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  // Bit-parallel LCS (Allison & Dix 1986; Hyyrö 2004): bit i of V is 0 where a[i] ends a match of
  // the LCS so far; each token of b updates 64 positions of a per machine word, with the carry
  // of the addition running across words. O(|b| · ⌈|a| / 64⌉) instead of the O(|a| · |b|) table.
  if (a.empty() || b.empty()) return 0;
  const size_t words = (a.size() + 63) / 64;
  thread_local std::vector<std::pair<uint64_t, uint32_t>> by_token;  // (token, position in a)
  thread_local std::vector<uint64_t> keys, masks, v;
  by_token.clear();
  for (size_t i = 0; i < a.size(); ++i) by_token.emplace_back(a[i], static_cast<uint32_t>(i));
  std::sort(by_token.begin(), by_token.end());
  keys.clear();
  masks.clear();
  for (const auto& [token, pos] : by_token) {  // one mask of positions per distinct token of a
    if (keys.empty() || keys.back() != token) {
      keys.push_back(token);
      masks.resize(masks.size() + words, 0);
    }
    masks[(keys.size() - 1) * words + pos / 64] |= uint64_t{1} << (pos % 64);
  }
  v.assign(words, ~uint64_t{0});
  for (uint64_t token : b) {
    auto it = std::lower_bound(keys.begin(), keys.end(), token);
    if (it == keys.end() || *it != token) continue;  // no match: V stays as it is
    const uint64_t* m = masks.data() + (it - keys.begin()) * words;
    uint64_t carry = 0;
    for (size_t k = 0; k < words; ++k) {
      const uint64_t x = v[k], u = x & m[k];
      uint64_t sum = x + u;
      uint64_t next_carry = sum < x;
      sum += carry;
      next_carry |= sum < carry;
      carry = next_carry;
      v[k] = sum | (x - u);
    }
  }
  size_t lcs = 0;
  for (size_t k = 0; k < words; ++k) {
    uint64_t zeros = ~v[k];
    if (k + 1 == words && a.size() % 64 != 0) zeros &= (uint64_t{1} << (a.size() % 64)) - 1;
    lcs += static_cast<size_t>(std::popcount(zeros));
  }
  return lcs;
}

namespace {
RougeScore FromCounts(size_t overlap, size_t candidate, size_t reference) {
  RougeScore s;
  s.precision = candidate ? static_cast<double>(overlap) / candidate : 0.0;
  s.recall = reference ? static_cast<double>(overlap) / reference : 0.0;
  s.fmeasure =
      s.precision + s.recall > 0 ? 2 * s.precision * s.recall / (s.precision + s.recall) : 0.0;
  return s;
}
}  // namespace

RougeScore Rouge(std::string_view candidate, std::string_view reference, RougeType type,
                 bool stem) {
  thread_local std::vector<uint64_t> c, r, cn, rn;  // reused across rows
  RougeTokenHashes(candidate, stem, c);
  RougeTokenHashes(reference, stem, r);
  if (type == RougeType::kRougeL) return FromCounts(LcsLength(r, c), c.size(), r.size());
  size_t n = type == RougeType::kRouge1 ? 1 : 2;
  cn.clear();
  rn.clear();
  AppendNgramHashes(c, n, cn);
  AppendNgramHashes(r, n, rn);
  return FromCounts(ClippedMatches(cn, rn), cn.size(), rn.size());
}

namespace {
enum class Mode { kF, kPrecision, kRecall };

class RougeMetric : public MetricBase {
 public:
  RougeMetric(MetricOptions o, RougeType type, Mode mode, bool stem)
      : MetricBase(RougeInfo(), std::move(o)), type_(type), mode_(mode), stem_(stem) {}
  MetricValue Score(const Sample& s, const Verdicts&) const override {
    RougeScore r = Rouge(*s.response, *s.reference, type_, stem_);
    return MetricValue::Number(mode_ == Mode::kF           ? r.fmeasure
                               : mode_ == Mode::kPrecision ? r.precision
                                                           : r.recall);
  }

 private:
  RougeType type_;
  Mode mode_;
  bool stem_;
};
}  // namespace

const MetricInfo& RougeInfo() {
  static const MetricInfo kInfo{.name = "rouge",
                                .aliases = {"rouge_score"},
                                .required_fields = Field::kResponse | Field::kReference,
                                .summary =
                                    "ROUGE-1/2/L precision, recall or F of the response "
                                    "against the reference (default rougeL F, stemmed)",
                                // 2: stems with NLTK's extended Porter, as rouge_score does
                                .version = "2"};
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeRouge(const MetricOptions& o) {
  const std::string& name = RougeInfo().name;
  TALA_RETURN_IF_ERROR(CheckOptionNames(name, o, {"type", "mode", "stem"}));
  RougeType type = RougeType::kRougeL;
  if (auto it = o.find("type"); it != o.end()) {
    if (it->second == "rouge1")
      type = RougeType::kRouge1;
    else if (it->second == "rouge2")
      type = RougeType::kRouge2;
    else if (it->second != "rougeL")
      return InvalidArgument("metric rouge: type must be rouge1, rouge2 or rougeL");
  }
  Mode mode = Mode::kF;
  if (auto it = o.find("mode"); it != o.end()) {
    if (it->second == "precision")
      mode = Mode::kPrecision;
    else if (it->second == "recall")
      mode = Mode::kRecall;
    else if (it->second != "fmeasure" && it->second != "f1")
      return InvalidArgument("metric rouge: mode must be fmeasure, precision or recall");
  }
  bool stem = true;
  if (auto it = o.find("stem"); it != o.end()) {
    if (it->second != "true" && it->second != "false")
      return InvalidArgument("metric rouge: stem must be true or false");
    stem = it->second == "true";
  }
  return std::unique_ptr<Metric>(new RougeMetric(o, type, mode, stem));
}

}  // namespace tala::metrics
