#pragma once
// How many items each intent gets, seeded and stratified by traffic. With fewer items than
// intents, intents are drawn without replacement with chances in proportion to their traffic,
// floored at a tenth of the mean so rare intents still appear (weighted sampling by keys
// u^(1/w), u from the seed and the intent's own key, so the draw does not depend on the order
// intents are listed in). With more, every intent gets one and the rest go by traffic (largest
// remainders), up to each intent's number of distinct phrasings. Intents with failing rows (a
// low score, a diagnosis other than healthy, a thumbs-down) are drawn first, by their failing
// traffic, up to `failed_share` of the items: failures are what a golden set must not miss.
// Before either, every intent with at least `always_share` of the traffic is picked, the
// largest first: a seeded draw may miss the second-largest intent, a golden set must not.
// `always_in`, when given, receives how many intents that is.
// Pure.

#include <cstdint>
#include <string>
#include <vector>

namespace tala::testset {

struct IntentForPick {
  std::string key;  // stable: the intent's typical question
  int64_t traffic = 0;
  int64_t capacity = 1;  // distinct phrasings: the most items it can give
  int64_t failed = 0;    // its logged rows that failed
};

std::vector<int64_t> AllocateItems(const std::vector<IntentForPick>& intents, int64_t size,
                                   uint64_t seed, double failed_share = 0,
                                   double always_share = 1.1, int64_t* always_in = nullptr);

// A uniform number in [0, 1) from the seed and a key.
double SeededUniform(uint64_t seed, const std::string& key);

}  // namespace tala::testset
