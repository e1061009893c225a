#include "analysis/judge_agreement.h"

#include <algorithm>
#include <map>

namespace tala::analysis {

Confusion Confuse(const std::vector<LabelledScore>& rows, double threshold) {
  Confusion c;
  for (const LabelledScore& r : rows) {
    bool judged = r.judge >= threshold;
    if (r.human_positive) {
      (judged ? c.true_positive : c.false_negative) += 1;
    } else {
      (judged ? c.false_positive : c.true_negative) += 1;
    }
  }
  return c;
}

double RawAgreement(const Confusion& c) {
  return c.n() == 0 ? 0.0 : static_cast<double>(c.true_positive + c.true_negative) / c.n();
}

std::optional<double> CohensKappa(const Confusion& c) {
  const double n = static_cast<double>(c.n());
  if (n == 0) return std::nullopt;
  double po = RawAgreement(c);
  double human_pos = (c.true_positive + c.false_negative) / n;
  double judge_pos = (c.true_positive + c.false_positive) / n;
  double pe = human_pos * judge_pos + (1 - human_pos) * (1 - judge_pos);
  if (pe >= 1.0) return std::nullopt;
  return (po - pe) / (1 - pe);
}

std::optional<double> Auroc(const std::vector<LabelledScore>& rows) {
  // Rank statistic (Mann-Whitney U) with average ranks for ties: O(n log n).
  std::vector<std::pair<double, bool>> sorted;
  for (const LabelledScore& r : rows) sorted.emplace_back(r.judge, r.human_positive);
  std::sort(sorted.begin(), sorted.end());
  double positives = 0, rank_sum = 0;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j < sorted.size() && sorted[j].first == sorted[i].first) ++j;
    double avg_rank = (i + 1 + j) / 2.0;  // ranks i+1..j
    for (size_t k = i; k < j; ++k) {
      if (sorted[k].second) {
        positives += 1;
        rank_sum += avg_rank;
      }
    }
    i = j;
  }
  double negatives = static_cast<double>(sorted.size()) - positives;
  if (positives == 0 || negatives == 0) return std::nullopt;
  return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives);
}

BestThreshold BestThresholdAccuracy(const std::vector<LabelledScore>& rows) {
  std::vector<double> cuts;
  for (const LabelledScore& r : rows) cuts.push_back(r.judge);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  cuts.push_back(cuts.empty() ? 1.0 : cuts.back() + 1.0);  // "everything negative"
  BestThreshold best;
  for (double t : cuts) {
    double acc = RawAgreement(Confuse(rows, t));
    if (acc > best.accuracy) best = {t, acc};
  }
  return best;
}

std::optional<PairwiseResult> PairwiseAccuracy(const std::vector<LabelledScore>& rows) {
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> groups;
  for (const LabelledScore& r : rows) {
    auto& g = groups[r.group];
    (r.human_positive ? g.first : g.second).push_back(r.judge);
  }
  PairwiseResult result;
  double wins = 0;
  for (const auto& [name, g] : groups) {
    if (g.first.empty() || g.second.empty()) continue;
    ++result.groups;
    for (double p : g.first) {
      for (double q : g.second) {
        ++result.pairs;
        wins += p > q ? 1.0 : p == q ? 0.5 : 0.0;
      }
    }
  }
  if (result.pairs == 0) return std::nullopt;
  result.accuracy = wins / result.pairs;
  return result;
}

std::optional<double> KrippendorffAlpha(const std::vector<std::vector<int>>& units) {
  // The coincidence matrix: each ordered pair of labels within a unit, weighted 1 / (m - 1).
  std::map<std::pair<int, int>, double> coincide;
  std::map<int, double> marginal;
  double n = 0;
  for (const std::vector<int>& unit : units) {
    const size_t m = unit.size();
    if (m < 2) continue;
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < m; ++j) {
        if (i == j) continue;
        coincide[{unit[i], unit[j]}] += 1.0 / static_cast<double>(m - 1);
      }
      marginal[unit[i]] += 1;
      n += 1;
    }
  }
  if (n < 2 || marginal.size() < 2) return std::nullopt;
  double observed = 0, expected = 0;
  for (const auto& [pair, o] : coincide) {
    if (pair.first != pair.second) observed += o;
  }
  for (const auto& [c, nc] : marginal) {
    for (const auto& [k, nk] : marginal) {
      if (c != k) expected += nc * nk;
    }
  }
  observed /= n;
  expected /= n * (n - 1);
  return 1.0 - observed / expected;
}

}  // namespace tala::analysis
