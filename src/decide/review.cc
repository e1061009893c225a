#include "tala/review.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "analysis/ppi.h"
#include "io/readers/results_reader.h"
#include "metrics/registry.h"

namespace tala {

namespace {
struct Candidate {
  size_t index;  // in the results file
  double score;
};

// n of `from` uniformly (seeded), as indices into `from`.
std::vector<size_t> UniformPick(size_t size, size_t n, std::mt19937_64& rng) {
  std::vector<size_t> order(size);
  std::iota(order.begin(), order.end(), 0);
  // Partial Fisher-Yates with the engine's own generator: the same seed picks the same rows on
  // every platform (std::shuffle's algorithm is the library's choice).
  for (size_t i = 0; i < std::min(n, size); ++i) {
    std::uniform_int_distribution<size_t> pick(i, size - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  order.resize(std::min(n, size));
  return order;
}

std::vector<Candidate> Stratified(const std::vector<Candidate>& all, size_t n, int strata,
                                  std::mt19937_64& rng) {
  std::vector<std::vector<Candidate>> bins(static_cast<size_t>(strata));
  for (const Candidate& c : all) {
    int b = std::clamp(static_cast<int>(std::floor(c.score * strata)), 0, strata - 1);
    bins[static_cast<size_t>(b)].push_back(c);
  }
  // Proportional allocation by largest remainder, so the pick stays (nearly) self-weighting.
  std::vector<size_t> take(bins.size());
  std::vector<std::pair<double, size_t>> remainders;
  size_t given = 0;
  for (size_t b = 0; b < bins.size(); ++b) {
    double exact = static_cast<double>(n) * bins[b].size() / static_cast<double>(all.size());
    take[b] = static_cast<size_t>(std::floor(exact));
    given += take[b];
    remainders.emplace_back(exact - std::floor(exact), b);
  }
  std::sort(remainders.rbegin(), remainders.rend());
  for (size_t i = 0; given < n && i < remainders.size(); ++i, ++given) ++take[remainders[i].second];
  std::vector<Candidate> out;
  for (size_t b = 0; b < bins.size(); ++b) {
    for (size_t i : UniformPick(bins[b].size(), take[b], rng)) out.push_back(bins[b][i]);
  }
  return out;
}
}  // namespace

Result<ReviewQueue> PickForReview(const ReviewOptions& o) {
  if (o.n < 1) return InvalidArgument("--n must be at least 1");
  if (o.pick != "random" && o.pick != "stratified" && o.pick != "low" && o.pick != "uncertain" &&
      o.pick != "active") {
    return InvalidArgument("--pick must be random, stratified, low, uncertain or active, not \"" +
                           o.pick + "\"");
  }
  TALA_ASSIGN_OR_RETURN(io::ResultsFile results,
                        io::ReadResults(o.results, io::EmptyResults::kError, io::RawLines::kKeep));
  std::vector<Candidate> all;
  for (size_t i = 0; i < results.rows.size(); ++i) {
    auto it = results.rows[i].scores.find(o.metric);
    if (it != results.rows[i].scores.end() && it->second) all.push_back({i, *it->second});
  }
  if (all.empty())
    return InvalidArgument("no row of " + o.results + " has a " + o.metric + " value");
  std::mt19937_64 rng(o.seed);
  const size_t n = std::min(static_cast<size_t>(o.n), all.size());
  std::vector<Candidate> picked;
  std::vector<double> chance_of_pick;  // --pick active: each picked row's chance, in `picked` order
  if (o.pick == "active") {
    std::vector<double> values;
    for (const Candidate& c : all) {
      if (c.score < 0 || c.score > 1) {
        return InvalidArgument("--pick active reads values between 0 and 1; " + o.metric + " has " +
                               std::to_string(c.score));
      }
      values.push_back(c.score);
    }
    const analysis::ActivePick pick =
        analysis::DrawActivePick(values, static_cast<long>(n), o.seed);
    for (size_t i : pick.rows) {
      picked.push_back(all[i]);
      chance_of_pick.push_back(pick.chances[i]);
    }
  } else if (o.pick == "random") {
    for (size_t i : UniformPick(all.size(), n, rng)) picked.push_back(all[i]);
  } else if (o.pick == "stratified") {
    picked = Stratified(all, n, std::max(1, o.strata), rng);
  } else {
    const bool lower_better = io::DirectionIn(results, o.metric) == Direction::kLowerIsBetter;
    auto key = [&](const Candidate& c) {
      if (o.pick == "uncertain") return std::abs(c.score - o.threshold);
      return lower_better ? -c.score : c.score;
    };
    std::stable_sort(all.begin(), all.end(),
                     [&](const Candidate& a, const Candidate& b) { return key(a) < key(b); });
    picked.assign(all.begin(), all.begin() + static_cast<long>(n));
  }
  std::vector<size_t> by_row(picked.size());
  for (size_t i = 0; i < by_row.size(); ++i) by_row[i] = i;
  std::sort(by_row.begin(), by_row.end(),
            [&](size_t a, size_t b) { return picked[a].index < picked[b].index; });
  ReviewQueue q{o.results, o.metric, o.pick, o.seed, o.threshold, static_cast<int64_t>(all.size()),
                {}};
  for (size_t k : by_row) {
    std::string line = results.rows[picked[k].index].json;
    // The row's chance of being picked goes with it to the page and into its label, where the
    // estimate weights by it.
    if (!chance_of_pick.empty() && !line.empty() && line.front() == '{') {
      line.insert(1, fmt::format("\"pick_probability\":{:.17g},", chance_of_pick[k]));
    }
    q.rows_json.push_back(std::move(line));
  }
  if (o.target_width > 0) {
    std::vector<double> values;
    for (const Candidate& c : all) values.push_back(std::clamp(c.score, 0.0, 1.0));
    if (auto need = analysis::LabelsForWidth(values, o.target_width)) {
      q.notes.push_back(fmt::format(
          "an estimate of {} within an interval {} wide needs about {:.0f} labels picked at "
          "random, {:.0f} picked with --pick active (if the judge's values are calibrated "
          "chances; tala calibrate tells)",
          o.metric, o.target_width, need->uniform, need->active));
    } else {
      q.notes.push_back(fmt::format(
          "no number of labels gives an interval {} wide: the judge's values alone over {} rows "
          "spread wider",
          o.target_width, all.size()));
    }
  }
  return q;
}

Result<std::vector<ReviewQueue>> AssignReviewers(const ReviewQueue& queue,
                                                 const std::vector<std::string>& labellers,
                                                 double overlap, uint64_t seed) {
  if (labellers.size() < 2) return InvalidArgument("--assign needs two reviewers or more (a,b)");
  for (size_t i = 0; i < labellers.size(); ++i) {
    if (labellers[i].empty()) return InvalidArgument("--assign: a reviewer's name is empty");
    if (std::find(labellers.begin(), labellers.begin() + static_cast<long>(i), labellers[i]) !=
        labellers.begin() + static_cast<long>(i)) {
      return InvalidArgument("--assign: " + labellers[i] + " is named twice");
    }
  }
  if (!(overlap >= 0 && overlap <= 1)) {
    return InvalidArgument("--overlap must be a share between 0 and 1");
  }
  const size_t n = queue.rows_json.size();
  std::mt19937_64 rng(seed ^ 0x5eedu);
  const std::vector<size_t> order = UniformPick(n, n, rng);
  const size_t shared = static_cast<size_t>(std::llround(overlap * static_cast<double>(n)));
  std::vector<std::vector<size_t>> rows(labellers.size());
  for (size_t k = 0; k < n; ++k) {
    if (k < shared) {
      for (auto& mine : rows) mine.push_back(order[k]);
    } else {
      rows[(k - shared) % labellers.size()].push_back(order[k]);
    }
  }
  std::vector<ReviewQueue> out;
  for (size_t r = 0; r < labellers.size(); ++r) {
    std::sort(rows[r].begin(), rows[r].end());
    ReviewQueue q = queue;
    q.labeller = labellers[r];
    q.rows_json.clear();
    for (size_t i : rows[r]) q.rows_json.push_back(queue.rows_json[i]);
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace tala
