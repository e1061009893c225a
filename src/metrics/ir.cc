#include "metrics/ir.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "metrics/ngram_counts.h"

namespace tala::metrics {

namespace {

constexpr FieldSet kFields = Field::kRetrievedContextIds | Field::kReferenceContextIds;

enum class Kind { kHitRate, kPrecision, kRecall, kMrr, kAveragePrecision, kNdcg, kRPrecision };

MetricInfo Info(const char* name, std::vector<std::string> aliases, const char* summary) {
  return MetricInfo{
      .name = name, .aliases = std::move(aliases), .required_fields = kFields, .summary = summary};
}

// Ids are compared by hash (HashToken, FNV-1a) first and by bytes only when the hashes agree.
// Rankings are short, so quadratic scans over 64-bit hashes beat any hash table, and they spare
// the string compares that dominated the cost per row.
struct HashedId {
  uint64_t hash;
  std::string_view id;
};

// 1 / log2(rank + 1) for a 0-based rank; the first ranks come from a table (log2 is the cost of
// nDCG otherwise).
double Discount(size_t i) {
  static const auto kTable = [] {
    std::array<double, 64> t{};
    for (size_t r = 0; r < t.size(); ++r) t[r] = 1.0 / std::log2(r + 2.0);
    return t;
  }();
  return i < kTable.size() ? kTable[i] : 1.0 / std::log2(i + 2.0);
}

bool Contains(const std::vector<HashedId>& ids, const HashedId& x) {
  for (const HashedId& y : ids) {
    if (y.hash == x.hash && y.id == x.id) return true;
  }
  return false;
}

class IrMetric : public MetricBase {
 public:
  IrMetric(const MetricInfo& info, MetricOptions options, Kind kind, std::optional<size_t> k,
           const char* short_name)
      : MetricBase(info, std::move(options)), kind_(kind), k_(k) {
    key_ = k ? std::string(short_name) + "@" + std::to_string(*k) : info.name;
  }
  const std::string& key() const override { return key_; }

  MetricValue Score(const Sample& s, const Verdicts&) const override {
    // Grades of the ranking, duplicates dropped at their later ranks. Scratch buffers are per
    // thread and reused: this runs millions of times, and rankings are short.
    thread_local std::vector<double> grades, ideal;
    thread_local std::vector<HashedId> seen, reference;
    grades.clear();
    ideal.clear();
    seen.clear();
    reference.clear();
    const bool graded = !s.reference_context_grades.empty();
    if (graded) {
      for (const auto& [id, g] : s.reference_context_grades) {
        if (g > 0) ideal.push_back(g);
      }
      std::sort(ideal.rbegin(), ideal.rend());
    } else {
      for (const std::string& id : *s.reference_context_ids) {
        HashedId h{HashToken(id), id};
        if (!Contains(reference, h)) reference.push_back(h);
      }
      ideal.assign(reference.size(), 1.0);
    }
    for (const std::string& id : *s.retrieved_context_ids) {
      HashedId h{HashToken(id), id};
      if (Contains(seen, h)) continue;
      seen.push_back(h);
      if (graded) {
        auto it = s.reference_context_grades.find(id);
        grades.push_back(it == s.reference_context_grades.end() ? 0.0 : it->second);
      } else {
        grades.push_back(Contains(reference, h) ? 1.0 : 0.0);
      }
    }
    const size_t relevant = ideal.size();
    if (relevant == 0 && kind_ != Kind::kPrecision) {
      return MetricValue::Undefined("no relevant reference id");
    }
    const size_t cut = k_ ? std::min(*k_, grades.size()) : grades.size();
    size_t hits = 0;
    for (size_t i = 0; i < cut; ++i) hits += grades[i] > 0 ? 1 : 0;
    switch (kind_) {
      case Kind::kHitRate:
        return MetricValue::Number(hits > 0 ? 1.0 : 0.0);
      case Kind::kPrecision: {
        size_t denom = k_ ? *k_ : grades.size();
        if (denom == 0) return MetricValue::Undefined("no retrieved ids");
        return MetricValue::Number(static_cast<double>(hits) / denom,
                                   Ratio(hits, denom, "ranks relevant"));
      }
      case Kind::kRecall:
        return MetricValue::Number(static_cast<double>(hits) / relevant,
                                   Ratio(hits, relevant, "relevant ids retrieved"));
      case Kind::kMrr:
        for (size_t i = 0; i < grades.size(); ++i) {
          if (grades[i] > 0)
            return MetricValue::Number(1.0 / (i + 1),
                                       "first relevant at rank " + std::to_string(i + 1));
        }
        return MetricValue::Number(0.0, "no relevant id retrieved");
      case Kind::kAveragePrecision: {
        double sum = 0;
        size_t found = 0;
        for (size_t i = 0; i < grades.size(); ++i) {
          if (grades[i] <= 0) continue;
          ++found;
          sum += static_cast<double>(found) / (i + 1);
        }
        return MetricValue::Number(sum / relevant);
      }
      case Kind::kNdcg: {
        double dcg = 0, idcg = 0;
        for (size_t i = 0; i < cut; ++i) dcg += grades[i] * Discount(i);
        size_t ideal_cut = k_ ? std::min(*k_, ideal.size()) : ideal.size();
        for (size_t i = 0; i < ideal_cut; ++i) idcg += ideal[i] * Discount(i);
        return MetricValue::Number(idcg > 0 ? dcg / idcg : 0.0);
      }
      case Kind::kRPrecision: {
        size_t in_top = 0;
        for (size_t i = 0; i < std::min(relevant, grades.size()); ++i) in_top += grades[i] > 0;
        return MetricValue::Number(static_cast<double>(in_top) / relevant);
      }
    }
    return MetricValue::Undefined("unknown IR metric");
  }

 private:
  Kind kind_;
  std::optional<size_t> k_;
  std::string key_;
};

Result<std::unique_ptr<Metric>> Make(const MetricInfo& info, const MetricOptions& options,
                                     Kind kind, bool takes_k, const char* short_name) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(
      info.name, options,
      takes_k ? std::initializer_list<const char*>{"k"} : std::initializer_list<const char*>{}));
  std::optional<size_t> k;
  if (auto it = options.find("k"); it != options.end()) {
    size_t v = 0;
    auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
    if (ec != std::errc() || end != it->second.data() + it->second.size() || v == 0) {
      return InvalidArgument("metric " + info.name + ": k must be an integer >= 1, got " +
                             it->second);
    }
    k = v;
  }
  return std::unique_ptr<Metric>(new IrMetric(info, options, kind, k, short_name));
}

}  // namespace

const MetricInfo& HitRateInfo() {
  static const MetricInfo kInfo = Info("hit_rate", {}, "1 when a relevant id is in the top k");
  return kInfo;
}
const MetricInfo& PrecisionAtKInfo() {
  static const MetricInfo kInfo =
      Info("precision_at_k", {"precision"}, "relevant ids in the top k / k (trec_eval P_k)");
  return kInfo;
}
const MetricInfo& RecallAtKInfo() {
  static const MetricInfo kInfo =
      Info("recall_at_k", {"recall"}, "relevant ids in the top k / relevant ids (recall_k)");
  return kInfo;
}
const MetricInfo& MrrInfo() {
  static const MetricInfo kInfo =
      Info("mrr", {"reciprocal_rank"}, "1 / rank of the first relevant id (recip_rank)");
  return kInfo;
}
const MetricInfo& AveragePrecisionInfo() {
  static const MetricInfo kInfo =
      Info("average_precision", {"map"}, "mean precision at the ranks of the relevant ids (map)");
  return kInfo;
}
const MetricInfo& NdcgInfo() {
  static const MetricInfo kInfo =
      Info("ndcg", {"ndcg_at_k"}, "graded DCG@k over the ideal DCG@k, log2 discount (ndcg_cut_k)");
  return kInfo;
}
const MetricInfo& RPrecisionInfo() {
  static const MetricInfo kInfo =
      Info("r_precision", {}, "precision at R, the number of relevant ids (Rprec)");
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeHitRate(const MetricOptions& o) {
  return Make(HitRateInfo(), o, Kind::kHitRate, true, "hit_rate");
}
Result<std::unique_ptr<Metric>> MakePrecisionAtK(const MetricOptions& o) {
  return Make(PrecisionAtKInfo(), o, Kind::kPrecision, true, "precision");
}
Result<std::unique_ptr<Metric>> MakeRecallAtK(const MetricOptions& o) {
  return Make(RecallAtKInfo(), o, Kind::kRecall, true, "recall");
}
Result<std::unique_ptr<Metric>> MakeMrr(const MetricOptions& o) {
  return Make(MrrInfo(), o, Kind::kMrr, false, "mrr");
}
Result<std::unique_ptr<Metric>> MakeAveragePrecision(const MetricOptions& o) {
  return Make(AveragePrecisionInfo(), o, Kind::kAveragePrecision, false, "average_precision");
}
Result<std::unique_ptr<Metric>> MakeNdcg(const MetricOptions& o) {
  return Make(NdcgInfo(), o, Kind::kNdcg, true, "ndcg");
}
Result<std::unique_ptr<Metric>> MakeRPrecision(const MetricOptions& o) {
  return Make(RPrecisionInfo(), o, Kind::kRPrecision, false, "r_precision");
}

bool TakesCutoff(const std::string& name) {
  return name == "hit_rate" || name == "precision_at_k" || name == "recall_at_k" || name == "ndcg";
}

}  // namespace tala::metrics
