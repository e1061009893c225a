#include "metrics/chrf.h"

#include <string>
#include <vector>

#include "metrics/ngram_counts.h"
#include "metrics/string_distance.h"

namespace tala::metrics {

namespace {
constexpr int kCharOrder = 6;

// Code points (as hash units), whitespace removed.
std::vector<uint64_t> Characters(std::string_view s) {
  std::vector<uint64_t> out;
  out.reserve(s.size());
  for (char32_t cp : CodePoints(s)) {
    if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r') continue;
    out.push_back(0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(cp) + 1));
  }
  return out;
}

bool IsPunct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
         (c >= '{' && c <= '~');
}

// Whitespace words with one leading or trailing punctuation mark split off, as sacreBLEU does.
std::vector<std::string> Words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (cur.empty()) return;
    if (cur.size() > 1 && IsPunct(cur.back())) {
      out.push_back(cur.substr(0, cur.size() - 1));
      out.push_back(cur.substr(cur.size() - 1));
    } else if (cur.size() > 1 && IsPunct(cur.front())) {
      out.push_back(cur.substr(0, 1));
      out.push_back(cur.substr(1));
    } else {
      out.push_back(cur);
    }
    cur.clear();
  };
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      flush();
    } else {
      cur += c;
    }
  }
  flush();
  return out;
}

struct OrderStats {
  size_t hyp = 0, ref = 0, match = 0;
};

std::vector<uint64_t> Units(const std::vector<std::string>& words) {
  std::vector<uint64_t> out;
  for (const std::string& w : words) out.push_back(HashToken(w));
  return out;
}

void AddOrders(const std::vector<uint64_t>& h, const std::vector<uint64_t>& r, int orders,
               std::vector<OrderStats>& stats) {
  thread_local std::vector<uint64_t> hn, rn;  // reused across rows: no allocation per order
  for (int n = 1; n <= orders; ++n) {
    hn.clear();
    rn.clear();
    AppendNgramHashes(h, n, hn);
    AppendNgramHashes(r, n, rn);
    stats.push_back({hn.size(), rn.size(), ClippedMatches(hn, rn)});
  }
}
}  // namespace

double Chrf(std::string_view hypothesis, std::string_view reference, int word_order, double beta) {
  std::vector<OrderStats> stats;
  AddOrders(Characters(hypothesis), Characters(reference), kCharOrder, stats);
  if (word_order > 0)
    AddOrders(Units(Words(hypothesis)), Units(Words(reference)), word_order, stats);
  double precision = 0, recall = 0;
  int effective = 0;
  for (const OrderStats& s : stats) {
    if (s.hyp == 0 || s.ref == 0) continue;
    precision += static_cast<double>(s.match) / s.hyp;
    recall += static_cast<double>(s.match) / s.ref;
    ++effective;
  }
  if (effective == 0) return 0.0;
  precision /= effective;
  recall /= effective;
  double b2 = beta * beta;
  if (precision + recall == 0) return 0.0;
  return (1 + b2) * precision * recall / (b2 * precision + recall);
}

namespace {
class ChrfMetric : public MetricBase {
 public:
  ChrfMetric(MetricOptions o, int word_order, double beta)
      : MetricBase(ChrfInfo(), std::move(o)), word_order_(word_order), beta_(beta) {}
  MetricValue Score(const Sample& s, const Verdicts&) const override {
    return MetricValue::Number(Chrf(*s.response, *s.reference, word_order_, beta_));
  }

 private:
  int word_order_;
  double beta_;
};
}  // namespace

const MetricInfo& ChrfInfo() {
  static const MetricInfo kInfo{.name = "chrf",
                                .aliases = {"chrf_score"},
                                .required_fields = Field::kResponse | Field::kReference,
                                .summary =
                                    "character n-gram F-score (chrF, or chrF++ with "
                                    "word_order=2) of the response against the reference"};
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeChrf(const MetricOptions& o) {
  const std::string& name = ChrfInfo().name;
  TALA_RETURN_IF_ERROR(CheckOptionNames(name, o, {"word_order", "beta"}));
  TALA_ASSIGN_OR_RETURN(double word_order, NumberOption(name, o, "word_order", 0, 0, 2));
  TALA_ASSIGN_OR_RETURN(double beta, NumberOption(name, o, "beta", 2.0, 1e-6, 1e6));
  return std::unique_ptr<Metric>(new ChrfMetric(o, static_cast<int>(word_order), beta));
}

}  // namespace tala::metrics
