#include "engine/estimate_from.h"

#include <fmt/format.h>

#include <map>

#include "analysis/ppi.h"

namespace tala {

Result<Estimate> EstimateFrom(const io::ResultsFile& results, const io::Labels& labels,
                              const std::string& metric, bool allow_biased_labels) {
  Estimate e;
  e.metric = metric;
  e.pick = labels.selection ? labels.selection->pick : "unknown";
  if (e.pick == "low" || e.pick == "uncertain") {
    std::string why = "the labelled rows were picked by score (--pick " + e.pick +
                      "), so their judge error is not the judge error over all rows";
    if (!allow_biased_labels) {
      return InvalidArgument(why +
                             "; label a random or stratified pick (tala review --pick "
                             "random), or pass --allow-biased-labels to estimate anyway");
    }
    e.notes.push_back("WARNING: " + why + ": the interval below is not valid");
  }
  if (!labels.selection) {
    e.notes.push_back(
        "the labels file does not say how its rows were chosen: taken as a uniform "
        "random subset");
  } else if (e.pick == "stratified") {
    e.notes.push_back("stratified pick with proportional allocation: treated as uniform");
  }
  // --pick active: rows were drawn with unequal, known chances; the judge's error is weighted
  // by them (Horvitz-Thompson), which keeps the estimate unbiased.
  const bool weighted = e.pick == "active";
  std::map<std::string, double> judge_of;
  std::vector<double> f_all;
  for (const io::ResultRow& row : results.rows) {
    auto it = row.scores.find(metric);
    if (it == row.scores.end() || !it->second) continue;
    judge_of[row.id] = *it->second;
    f_all.push_back(*it->second);
  }
  std::vector<double> f_labelled, y, pi;
  long unmatched = 0, unweighted = 0;
  for (const io::LabelRow& label : labels.rows) {
    auto value = label.values.find(metric);
    if (value == label.values.end()) continue;
    auto judge = judge_of.find(label.id);
    if (judge == judge_of.end()) {
      ++unmatched;
      continue;
    }
    if (weighted && !label.pick_probability) {
      ++unweighted;
      continue;
    }
    f_labelled.push_back(judge->second);
    y.push_back(value->second);
    pi.push_back(label.pick_probability.value_or(1));
  }
  if (unweighted > 0) {
    e.notes.push_back(fmt::format(
        "{} labels of an active pick carry no pick_probability (left out: without it a label "
        "cannot be weighted)",
        unweighted));
  }
  if (unmatched > 0) {
    e.notes.push_back(fmt::format("{} labelled rows have no {} value in the results (left out)",
                                  unmatched, metric));
  }
  if (f_all.size() < 2) return InvalidArgument(metric + " has fewer than 2 scored rows");
  if (y.size() < 2) {
    return InvalidArgument(
        fmt::format("{} labelled rows carry a {} value and match a scored row; "
                    "the estimate needs at least 2",
                    y.size(), metric));
  }
  analysis::PpiResult r = weighted
                              ? analysis::PredictionPoweredMeanWeighted(f_all, f_labelled, y, pi)
                              : analysis::PredictionPoweredMean(f_all, f_labelled, y);
  if (weighted) {
    e.notes.push_back(r.stratified
                          ? "active pick: the judge's error read stratum by stratum (the "
                            "labels are the pick's strata of the judge's values)"
                          : "active pick: each label weighted by its row's chance of being "
                            "picked");
  }
  e.n_total = static_cast<long>(f_all.size());
  e.n_labelled = static_cast<long>(y.size());
  e.ppi_mean = r.ppi.mean, e.ppi_low = r.ppi.low, e.ppi_high = r.ppi.high;
  e.judge_mean = r.judge.mean, e.judge_low = r.judge.low, e.judge_high = r.judge.high;
  e.human_mean = r.human.mean, e.human_low = r.human.low, e.human_high = r.human.high;
  e.judge_bias = r.rectifier;
  e.effective_n = r.effective_n;
  return e;
}

}  // namespace tala
