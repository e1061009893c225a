// tala review --pick active against random picks, in simulation (issue 55 item 4): the judge's
// values and people's labels of a results file; for each pick, 200 seeded draws of n labels and
// the prediction-powered interval tala estimate would give. Prints the width random picks reach
// with 100 labels, the fewest active labels that reach it, and each pick's bias (the mean error
// against the true mean of the labels, beside its standard error).
// Usage: bench_active_labels RESULTS LABELLED.jsonl [METRIC=faithfulness] [LABEL_FIELD=label]
//        [POSITIVE=right] [SIMS=200]

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "analysis/ppi.h"

using nlohmann::json;
using namespace tala::analysis;

namespace {
struct Outcome {
  double width = 0, error = 0, error_se = 0;
  double coverage = 0;  // the share of draws whose interval holds the labels' true mean
};

Outcome Simulate(const std::vector<double>& f, const std::vector<double>& y, long n, bool active,
                 int sims) {
  const double truth = [&] {
    double s = 0;
    for (double v : y) s += v;
    return s / static_cast<double>(y.size());
  }();
  double width = 0, err = 0, err2 = 0;
  int covered = 0;
  std::mt19937_64 rng(99);
  for (int s = 0; s < sims; ++s) {
    std::vector<double> fl, yl, pi;
    if (active) {
      const ActivePick pick = DrawActivePick(f, n, 1000 + static_cast<uint64_t>(s));
      for (size_t i : pick.rows) {
        fl.push_back(f[i]);
        yl.push_back(y[i]);
        pi.push_back(pick.chances[i]);
      }
    } else {
      std::vector<size_t> order(f.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), rng);
      for (long k = 0; k < n; ++k) {
        fl.push_back(f[order[k]]);
        yl.push_back(y[order[k]]);
      }
    }
    const PpiResult r =
        active ? PredictionPoweredMeanWeighted(f, fl, yl, pi) : PredictionPoweredMean(f, fl, yl);
    width += r.ppi.high - r.ppi.low;
    covered += r.ppi.low <= truth && truth <= r.ppi.high;
    err += r.ppi.mean - truth;
    err2 += (r.ppi.mean - truth) * (r.ppi.mean - truth);
  }
  Outcome o;
  o.width = width / sims;
  o.coverage = static_cast<double>(covered) / sims;
  o.error = err / sims;
  const double var = err2 / sims - o.error * o.error;
  o.error_se = std::sqrt(std::max(var, 0.0) / sims);
  return o;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: bench_active_labels RESULTS LABELLED.jsonl [METRIC] [FIELD] "
                 "[POSITIVE] [SIMS]\n");
    return 2;
  }
  const std::string metric = argc > 3 ? argv[3] : "faithfulness";
  const std::string field = argc > 4 ? argv[4] : "label";
  const std::string positive = argc > 5 ? argv[5] : "right";
  const int sims = argc > 6 ? std::atoi(argv[6]) : 200;
  std::map<std::string, double> label;
  std::ifstream data(argv[2]);
  for (std::string line; std::getline(data, line);) {
    json row = json::parse(line, nullptr, false);
    if (!row.is_object() || !row.contains("id") || !row.contains(field)) continue;
    const json& v = row[field];
    label[row["id"].is_string() ? row["id"].get<std::string>() : row["id"].dump()] =
        v.is_number()   ? v.get<double>()
        : v == positive ? 1.0
                        : 0.0;
  }
  std::vector<double> f, y;
  std::ifstream results(argv[1]);
  for (std::string line; std::getline(results, line);) {
    json row = json::parse(line, nullptr, false);
    if (!row.is_object() || !row.contains("scores") || !row["scores"].contains(metric)) continue;
    const json& v = row["scores"][metric];
    auto it = label.find(row["id"].get<std::string>());
    if (!v.is_number() || it == label.end()) continue;
    f.push_back(v.get<double>());
    y.push_back(it->second);
  }
  std::printf("%zu rows with a %s value and a label; %d simulations each\n", f.size(),
              metric.c_str(), sims);
  const Outcome random100 = Simulate(f, y, 100, false, sims);
  std::printf(
      "random, 100 labels: mean width %.4f, bias %+.4f (se %.4f), 95%% interval holds "
      "the truth in %.1f%% of draws\n",
      random100.width, random100.error, random100.error_se, 100 * random100.coverage);
  long fewest = 0;
  Outcome at;
  for (long n = 20; n <= 100; n += 2) {
    at = Simulate(f, y, n, true, sims);
    if (at.width <= random100.width) {
      fewest = n;
      break;
    }
  }
  if (fewest > 0) {
    std::printf(
        "active reaches it with %ld labels (%.0f%% fewer): mean width %.4f, bias %+.4f "
        "(se %.4f), holds the truth in %.1f%% of draws\n",
        fewest, 100.0 * (100 - fewest) / 100, at.width, at.error, at.error_se, 100 * at.coverage);
  } else {
    std::printf("active does not reach it with 100 labels or fewer\n");
  }
  const Outcome active100 = Simulate(f, y, 100, true, sims);
  std::printf(
      "active, 100 labels: mean width %.4f, bias %+.4f (se %.4f), holds the truth in "
      "%.1f%% of draws\n",
      active100.width, active100.error, active100.error_se, 100 * active100.coverage);
  if (auto need = LabelsForWidth(f, random100.width)) {
    std::printf("tala review --target-width %.4f would say: %.0f random, %.0f active\n",
                random100.width, need->uniform, need->active);
  }
  return 0;
}
