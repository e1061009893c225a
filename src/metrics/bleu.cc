#include "metrics/bleu.h"

#include <cmath>

#include "metrics/ngram_counts.h"

namespace tala::metrics {

namespace {
// The punctuation class of 13a: { to ~, [ to `, space to &, ( to +, : to @, and /.
bool Is13aPunct(unsigned char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
         (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

namespace {
// 13a's normalisation and punctuation splitting; tokens are then the space-separated pieces.
std::string Spaced13a(std::string_view in) {
  std::string line;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '-' && i + 1 < in.size() && in[i + 1] == '\n') {
      ++i;  // a hyphen at a line break joins the word
      continue;
    }
    line.push_back(in[i] == '\n' ? ' ' : in[i]);
  }
  for (auto [from, to] : {std::pair<std::string_view, std::string_view>{"&quot;", "\""},
                          {"&amp;", "&"},
                          {"&lt;", "<"},
                          {"&gt;", ">"}}) {
    for (size_t at; (at = line.find(from)) != std::string::npos;) line.replace(at, from.size(), to);
  }
  std::string spaced;
  spaced.reserve(line.size() * 2);
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    bool prev_digit = i > 0 && IsDigit(line[i - 1]);
    bool next_digit = i + 1 < line.size() && IsDigit(line[i + 1]);
    bool split = false;
    if (c == '.' || c == ',') {
      split = !prev_digit || !next_digit;  // 3.14 and 1,000 stay whole
    } else if (c == '-') {
      split = prev_digit;
    } else if (c != ' ' && Is13aPunct(static_cast<unsigned char>(c))) {
      split = true;
    }
    if (split) {
      spaced += ' ';
      spaced += c;
      spaced += ' ';
    } else {
      spaced += c;
    }
  }
  return spaced;
}

// Calls fn(token) for each space-separated piece of `spaced`.
template <typename Fn>
void ForEachToken(std::string_view spaced, Fn fn) {
  size_t start = std::string_view::npos;
  for (size_t i = 0; i <= spaced.size(); ++i) {
    bool space = i == spaced.size() || spaced[i] == ' ' || spaced[i] == '\t' || spaced[i] == '\r';
    if (!space && start == std::string_view::npos) start = i;
    if (space && start != std::string_view::npos) {
      fn(spaced.substr(start, i - start));
      start = std::string_view::npos;
    }
  }
}

std::vector<uint64_t> TokenHashes13a(std::string_view text) {
  std::vector<uint64_t> out;
  ForEachToken(Spaced13a(text), [&](std::string_view t) { out.push_back(HashToken(t)); });
  return out;
}
}  // namespace

std::vector<std::string> Tokenize13a(std::string_view in) {
  std::vector<std::string> tokens;
  ForEachToken(Spaced13a(in), [&](std::string_view t) { tokens.emplace_back(t); });
  return tokens;
}

double Bleu(std::string_view hypothesis, std::string_view reference) {
  std::vector<uint64_t> h = TokenHashes13a(hypothesis), r = TokenHashes13a(reference);
  constexpr size_t kOrder = 4;
  size_t correct[kOrder], total[kOrder];
  bool any = false;
  for (size_t n = 1; n <= kOrder; ++n) {
    std::vector<uint64_t> hn = NgramHashesFromUnits(h, n), rn = NgramHashesFromUnits(r, n);
    correct[n - 1] = ClippedMatches(hn, rn);
    total[n - 1] = hn.size();
    any = any || correct[n - 1] > 0;
  }
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
  double hyp_len = static_cast<double>(h.size()), ref_len = static_cast<double>(r.size());
  double bp = hyp_len < ref_len ? (hyp_len > 0 ? std::exp(1.0 - ref_len / hyp_len) : 0.0) : 1.0;
  return bp * std::exp(log_sum / kOrder);
}

namespace {
class BleuMetric : public MetricBase {
 public:
  using MetricBase::MetricBase;
  MetricValue Score(const Sample& s, const Verdicts&) const override {
    return MetricValue::Number(Bleu(*s.response, *s.reference));
  }
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
  TALA_RETURN_IF_ERROR(CheckOptionNames(BleuInfo().name, o, {}));
  return std::unique_ptr<Metric>(new BleuMetric(BleuInfo(), o));
}

}  // namespace tala::metrics
