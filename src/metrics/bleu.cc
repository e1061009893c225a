#include "metrics/bleu.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "metrics/ngram_counts.h"

namespace tala::metrics {

namespace {
// What 13a does with each byte. Bytes of 0x80 and above (UTF-8 beyond ASCII) are word bytes:
// every class 13a knows is ASCII.
enum class Byte13a : unsigned char {
  kWord,
  kSpace,     // Python's str.split() white space: ends a token
  kPunct,     // { to ~, [ to `, ! to &, ( to +, : to @, and /: always its own token
  kDotComma,  // its own token unless between two digits
  kDash,      // its own token after a digit
};

constexpr std::array<Byte13a, 256> MakeByteClasses() {
  std::array<Byte13a, 256> t{};
  auto range = [&](int from, int to, Byte13a k) {
    for (int c = from; c <= to; ++c) t[c] = k;
  };
  range('{', '~', Byte13a::kPunct);
  range('[', '`', Byte13a::kPunct);
  range('!', '&', Byte13a::kPunct);
  range('(', '+', Byte13a::kPunct);
  range(':', '@', Byte13a::kPunct);
  t['/'] = Byte13a::kPunct;
  range('\t', '\r', Byte13a::kSpace);
  range('\x1c', '\x1f', Byte13a::kSpace);
  t[' '] = Byte13a::kSpace;
  t['.'] = t[','] = Byte13a::kDotComma;
  t['-'] = Byte13a::kDash;
  return t;
}
constexpr std::array<Byte13a, 256> kByteClass = MakeByteClasses();

Byte13a ClassOf(char c) { return kByteClass[static_cast<unsigned char>(c)]; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Every occurrence of `from` replaced, left to right and not recursively (as Python's
// str.replace, which sacreBLEU uses).
std::string ReplaceAll(std::string_view in, std::string_view from, std::string_view to) {
  std::string out;
  size_t pos = 0;
  for (size_t at; (at = in.find(from, pos)) != std::string_view::npos; pos = at + from.size()) {
    out.append(in.substr(pos, at - pos));
    out.append(to);
  }
  out.append(in.substr(pos));
  return out;
}

// 13a's normalisation: drop "<skipped>", join a hyphen at a line break, line breaks become spaces,
// then the four entities are decoded. Most text needs none of it: it is returned as is, and only
// text holding a line break, '&' or '<' is copied into `buf`.
std::string_view Normalized13a(std::string_view in, std::string& buf) {
  bool needed = false;
  for (char c : in) needed |= c == '\n' || c == '&' || c == '<';
  if (!needed) return in;
  buf = ReplaceAll(in, "<skipped>", "");
  buf = ReplaceAll(buf, "-\n", "");
  buf = ReplaceAll(buf, "\n", " ");
  if (buf.find('&') != std::string::npos) {
    buf = ReplaceAll(buf, "&quot;", "\"");
    buf = ReplaceAll(buf, "&amp;", "&");
    buf = ReplaceAll(buf, "&lt;", "<");
    buf = ReplaceAll(buf, "&gt;", ">");
  }
  return buf;
}

// Calls fn(token) for each 13a token of a normalised line. 13a puts spaces around punctuation
// and then splits on white space; a word is therefore a run of the line itself and a split
// character a token of its own, so the tokens are views of the line: no spaced copy is built.
template <typename Fn>
void ForEach13aToken(std::string_view line, Fn fn) {
  size_t start = std::string_view::npos;
  auto flush = [&](size_t end) {
    if (start != std::string_view::npos) fn(line.substr(start, end - start));
    start = std::string_view::npos;
  };
  for (size_t i = 0; i < line.size(); ++i) {
    bool split = false;
    switch (ClassOf(line[i])) {
      case Byte13a::kSpace:
        flush(i);
        continue;
      case Byte13a::kPunct:
        split = true;
        break;
      case Byte13a::kDotComma:  // 3.14 and 1,000 stay whole
        split = !(i > 0 && IsDigit(line[i - 1]) && i + 1 < line.size() && IsDigit(line[i + 1]));
        break;
      case Byte13a::kDash:
        split = i > 0 && IsDigit(line[i - 1]);
        break;
      case Byte13a::kWord:
        break;
    }
    if (split) {
      flush(i);
      fn(line.substr(i, 1));
    } else if (start == std::string_view::npos) {
      start = i;
    }
  }
  flush(line.size());
}

void TokenHashes13a(std::string_view text, std::vector<uint64_t>& out) {
  thread_local std::string buf;
  out.clear();
  ForEach13aToken(Normalized13a(text, buf),
                  [&](std::string_view t) { out.push_back(HashToken(t)); });
}
}  // namespace

std::vector<std::string> Tokenize13a(std::string_view in) {
  std::string buf;
  std::vector<std::string> tokens;
  ForEach13aToken(Normalized13a(in, buf), [&](std::string_view t) { tokens.emplace_back(t); });
  return tokens;
}

namespace {
// BLEU from the clipped matches and totals per order and the two lengths, with sacreBLEU's
// exponential smoothing.
constexpr size_t kOrder = 4;
double BleuFromCounts(const size_t (&correct)[kOrder], const size_t (&total)[kOrder],
                      size_t hyp_tokens, size_t ref_tokens) {
  bool any = false;
  for (size_t n = 0; n < kOrder; ++n) any = any || correct[n] > 0;
  if (!any) return 0.0;
  double log_sum = 0, smooth = 1;
  for (size_t n = 0; n < kOrder; ++n) {
    double p;
    if (total[n] == 0) {
      p = 0;  // sacreBLEU (no effective order): a missing order scores log(0)
    } else if (correct[n] == 0) {
      smooth *= 2;
      p = 1.0 / (smooth * total[n]);
    } else {
      p = static_cast<double>(correct[n]) / total[n];
    }
    log_sum += p > 0 ? std::log(p) : -9999999999.0;
  }
  double hyp_len = static_cast<double>(hyp_tokens), ref_len = static_cast<double>(ref_tokens);
  double bp = hyp_len < ref_len ? (hyp_len > 0 ? std::exp(1.0 - ref_len / hyp_len) : 0.0) : 1.0;
  return bp * std::exp(log_sum / kOrder);
}

// Python's str.split(sep): the pieces between the separators, empty ones kept.
std::vector<std::string_view> SplitOn(std::string_view text, std::string_view sep) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  for (size_t at; (at = text.find(sep, pos)) != std::string_view::npos; pos = at + sep.size()) {
    out.push_back(text.substr(pos, at - pos));
  }
  out.push_back(text.substr(pos));
  return out;
}
}  // namespace

double Bleu(std::string_view hypothesis, std::string_view reference) {
  // Per-thread buffers, reused: BLEU runs over millions of rows.
  thread_local std::vector<uint64_t> h, r, hn, rn;
  TokenHashes13a(hypothesis, h);
  TokenHashes13a(reference, r);
  size_t correct[kOrder], total[kOrder];
  for (size_t n = 1; n <= kOrder; ++n) {
    hn.clear();
    rn.clear();
    AppendNgramHashes(h, n, hn);
    AppendNgramHashes(r, n, rn);
    correct[n - 1] = ClippedMatches(hn, rn);
    total[n - 1] = hn.size();
  }
  return BleuFromCounts(correct, total, h.size(), r.size());
}

double BleuMultiReference(std::string_view hypothesis,
                          const std::vector<std::string_view>& references) {
  std::vector<uint64_t> h, hn;
  TokenHashes13a(hypothesis, h);
  std::vector<std::vector<uint64_t>> refs(references.size());
  for (size_t i = 0; i < references.size(); ++i) TokenHashes13a(references[i], refs[i]);
  // sacreBLEU's effective reference length: the one closest to the hypothesis, the shorter on
  // a tie.
  size_t ref_len = 0, best_gap = SIZE_MAX;
  for (const auto& r : refs) {
    size_t gap = r.size() > h.size() ? r.size() - h.size() : h.size() - r.size();
    if (gap < best_gap || (gap == best_gap && r.size() < ref_len)) {
      best_gap = gap;
      ref_len = r.size();
    }
  }
  size_t correct[kOrder], total[kOrder];
  std::vector<uint64_t> rn;
  for (size_t n = 1; n <= kOrder; ++n) {
    hn.clear();
    AppendNgramHashes(h, n, hn);
    // Each n-gram is clipped at the most times any one reference holds it.
    std::unordered_map<uint64_t, size_t> most;
    for (const auto& r : refs) {
      rn.clear();
      AppendNgramHashes(r, n, rn);
      std::unordered_map<uint64_t, size_t> here;
      for (uint64_t g : rn) ++here[g];
      for (const auto& [g, c] : here) most[g] = std::max(most[g], c);
    }
    std::unordered_map<uint64_t, size_t> mine;
    for (uint64_t g : hn) ++mine[g];
    size_t matched = 0;
    for (const auto& [g, c] : mine) {
      auto it = most.find(g);
      if (it != most.end()) matched += std::min(c, it->second);
    }
    correct[n - 1] = matched;
    total[n - 1] = hn.size();
  }
  return BleuFromCounts(correct, total, h.size(), ref_len);
}

double BleuRagasCompat(std::string_view response, std::string_view reference) {
  // Ragas splits both texts on ". " and hands the lists to sacreBLEU's corpus_bleu with each
  // reference sentence as a reference stream of one line; sacreBLEU then scores the first
  // response sentence alone, against every reference sentence.
  return BleuMultiReference(SplitOn(response, ". ").front(), SplitOn(reference, ". "));
}

namespace {
class BleuMetric : public MetricBase {
 public:
  BleuMetric(const MetricInfo& info, MetricOptions options, bool ragas_compat)
      : MetricBase(info, std::move(options)), ragas_compat_(ragas_compat) {}
  MetricValue Score(const Sample& s, const Verdicts&) const override {
    return MetricValue::Number(ragas_compat_ ? BleuRagasCompat(*s.response, *s.reference)
                                             : Bleu(*s.response, *s.reference));
  }

 private:
  bool ragas_compat_;
};
}  // namespace

const MetricInfo& BleuInfo() {
  static const MetricInfo kInfo{.name = "bleu",
                                .aliases = {"bleu_score"},
                                .required_fields = Field::kResponse | Field::kReference,
                                .summary =
                                    "sacreBLEU-style BLEU (13a, exp smoothing) of the "
                                    "response against the reference, 0-1"};
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeBleu(const MetricOptions& o) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(BleuInfo().name, o, {"ragas_compat"}));
  bool ragas_compat = false;
  if (auto it = o.find("ragas_compat"); it != o.end()) {
    if (it->second != "true" && it->second != "false") {
      return InvalidArgument("metric bleu: ragas_compat must be true or false, not \"" +
                             it->second + "\"");
    }
    ragas_compat = it->second == "true";
  }
  return std::unique_ptr<Metric>(new BleuMetric(BleuInfo(), o, ragas_compat));
}

}  // namespace tala::metrics
