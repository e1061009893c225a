#include "testset/pick.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/hash.h"

namespace tala::testset {

double SeededUniform(uint64_t seed, const std::string& key) {
  const uint64_t h = Sha256Prefix64(std::to_string(seed) + '\x1f' + key);
  return (static_cast<double>(h >> 11) + 0.5) / 9007199254740992.0;  // (0, 1)
}

std::vector<int64_t> AllocateItems(const std::vector<IntentForPick>& intents, int64_t size,
                                   uint64_t seed, double failed_share, double always_share,
                                   int64_t* always_in) {
  const size_t n = intents.size();
  std::vector<int64_t> count(n, 0);
  if (always_in != nullptr) *always_in = 0;
  if (n == 0 || size <= 0) return count;
  double mean = 0;
  for (const IntentForPick& i : intents) mean += static_cast<double>(i.traffic);
  const double total = mean;
  mean /= static_cast<double>(n);
  // The top needs: the intents above the share (as many as there are items, at most).
  int64_t above = 0;
  for (const IntentForPick& i : intents) {
    above += total > 0 && static_cast<double>(i.traffic) >= always_share * total ? 1 : 0;
  }
  const int64_t always = std::min(above, size);
  if (always_in != nullptr) *always_in = always;
  auto weight = [&](size_t i) {
    return std::max(static_cast<double>(intents[i].traffic), std::max(1e-9, 0.1 * mean));
  };
  if (static_cast<size_t>(size) <= n) {
    // Efraimidis-Spirakis: the largest keys u^(1/w), compared as log(u)/w; first among the
    // intents that failed (weighted by their failing rows), up to the quota.
    auto draw = [&](int64_t wanted, bool failing) {
      std::vector<std::pair<double, size_t>> keys;
      for (size_t i = 0; i < n; ++i) {
        if (count[i] > 0 || (failing && intents[i].failed == 0)) continue;
        const double w = failing ? static_cast<double>(intents[i].failed) : weight(i);
        keys.emplace_back(std::log(SeededUniform(seed, intents[i].key)) / w, i);
      }
      std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
      });
      for (int64_t k = 0; k < wanted && k < static_cast<int64_t>(keys.size()); ++k) {
        count[keys[k].second] = 1;
      }
      return std::min<int64_t>(wanted, static_cast<int64_t>(keys.size()));
    };
    // The top needs first: every intent above the share, the largest first (ties: listed first).
    std::vector<size_t> by_traffic(n);
    std::iota(by_traffic.begin(), by_traffic.end(), size_t{0});
    std::stable_sort(by_traffic.begin(), by_traffic.end(),
                     [&](size_t a, size_t b) { return intents[a].traffic > intents[b].traffic; });
    for (int64_t k = 0; k < always; ++k) count[by_traffic[static_cast<size_t>(k)]] = 1;
    const int64_t quota =
        std::min(size - always, static_cast<int64_t>(std::llround(failed_share * size)));
    const int64_t drawn = quota > 0 ? draw(quota, true) : 0;
    draw(size - always - drawn, false);
    return count;
  }
  // One each, then the rest by traffic, up to each intent's capacity.
  int64_t left = size - static_cast<int64_t>(n);
  std::fill(count.begin(), count.end(), 1);
  while (left > 0) {
    std::vector<size_t> open;
    double open_traffic = 0;
    for (size_t i = 0; i < n; ++i) {
      if (count[i] < intents[i].capacity) {
        open.push_back(i);
        open_traffic += weight(i);
      }
    }
    if (open.empty()) break;
    std::vector<std::pair<double, size_t>> remainders;
    int64_t given = 0;
    for (size_t i : open) {
      const double share = static_cast<double>(left) * weight(i) / open_traffic;
      int64_t whole =
          std::min<int64_t>(static_cast<int64_t>(share), intents[i].capacity - count[i]);
      count[i] += whole;
      given += whole;
      if (count[i] < intents[i].capacity) remainders.emplace_back(share - std::floor(share), i);
    }
    std::sort(remainders.begin(), remainders.end(), [&](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first > b.first;
      return SeededUniform(seed, intents[a.second].key) <
             SeededUniform(seed, intents[b.second].key);
    });
    left -= given;
    for (size_t k = 0; k < remainders.size() && left > 0; ++k) {
      ++count[remainders[k].second];
      --left;
    }
    if (given == 0 && remainders.empty()) break;
  }
  return count;
}

}  // namespace tala::testset
