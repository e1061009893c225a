#include "metrics/rouge.h"

#include <algorithm>

#include "core/text/stemmer.h"
#include "metrics/ngram_counts.h"

namespace tala::metrics {

std::vector<std::string> RougeTokens(std::string_view text, bool stem) {
  // One stemmer per thread: libstemmer keeps state, and metrics may be scored concurrently.
  thread_local text::Stemmer porter("porter");
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (cur.empty()) return;
    out.push_back(stem && cur.size() > 3 ? porter.Stem(cur) : cur);
    cur.clear();
  };
  for (char c : text) {
    char l = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) {
      cur += l;
    } else {
      flush();
    }
  }
  flush();
  return out;
}

namespace {
// Longest common subsequence over token hashes (comparing integers, not strings).
size_t LcsLength(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  std::vector<size_t> row(b.size() + 1, 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = 0;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = a[i - 1] == b[j - 1] ? diag + 1 : std::max(row[j], row[j - 1]);
      diag = up;
    }
  }
  return row[b.size()];
}

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
  std::vector<uint64_t> c, r;
  for (const std::string& t : RougeTokens(candidate, stem)) c.push_back(HashToken(t));
  for (const std::string& t : RougeTokens(reference, stem)) r.push_back(HashToken(t));
  if (type == RougeType::kRougeL) return FromCounts(LcsLength(r, c), c.size(), r.size());
  size_t n = type == RougeType::kRouge1 ? 1 : 2;
  std::vector<uint64_t> cn = NgramHashesFromUnits(c, n), rn = NgramHashesFromUnits(r, n);
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
                                    "against the reference (default rougeL F, stemmed)"};
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
