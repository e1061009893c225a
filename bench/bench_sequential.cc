// --sequential's confidence sequence in simulation (issue 56's targets): how often it decides
// wrongly when nothing changed, and how many of 400 rows a clear regression needs.
// Usage: bench_sequential [RUNS=1000]

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "analysis/confidence_sequence.h"

using tala::analysis::ConfidenceSequence;

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int rows = 400;
  std::mt19937_64 rng(2026);
  // 1. A min gate at the true mean (faithfulness 0.7, as 0/1 verdicts): any decision is wrong.
  std::bernoulli_distribution faithful(0.7);
  int wrong_min = 0;
  for (int r = 0; r < runs; ++r) {
    ConfidenceSequence cs(0.05);
    for (int i = 0; i < rows; ++i) {
      cs.Add(faithful(rng) ? 1 : 0);
      if (cs.lower() > 0.7 || cs.upper() < 0.7) {
        ++wrong_min;
        break;
      }
    }
  }
  // 2. Nothing changed but judge noise: paired differences in {-0.2 .. 0.2}, gate max-drop 0.05.
  std::uniform_int_distribution<int> noise(-2, 2);
  int wrong_drop = 0, passed_early = 0;
  for (int r = 0; r < runs; ++r) {
    ConfidenceSequence cs(0.05, -1, 1);
    for (int i = 0; i < rows; ++i) {
      cs.Add(0.1 * noise(rng));
      if (cs.lower() > 0.05) {
        ++wrong_drop;
        break;
      }
      if (cs.upper() <= 0.05) {
        ++passed_early;
        break;
      }
    }
  }
  // 3. A clear regression: faithfulness -0.1 (10% of rows lose their support), max-drop 0.02.
  std::vector<int> needed;
  int undecided = 0;
  std::uniform_real_distribution<double> u(0, 1);
  for (int r = 0; r < runs; ++r) {
    ConfidenceSequence cs(0.05, -1, 1);
    int at = 0;
    for (int i = 1; i <= rows && at == 0; ++i) {
      cs.Add(u(rng) < 0.1 ? 1.0 : 0.0);  // the drop of each row
      if (cs.lower() > 0.02) at = i;
    }
    if (at == 0)
      ++undecided;
    else
      needed.push_back(at);
  }
  std::sort(needed.begin(), needed.end());
  std::printf("runs %d, rows %d, alpha 0.05\n", runs, rows);
  std::printf("min gate at the true mean: wrong decisions %d (%.1f%%)\n", wrong_min,
              100.0 * wrong_min / runs);
  std::printf("nothing changed, max-drop 0.05: wrong fails %d (%.1f%%), passed early %d\n",
              wrong_drop, 100.0 * wrong_drop / runs, passed_early);
  if (!needed.empty()) {
    std::printf(
        "regression -0.1, max-drop 0.02: decided FAIL in %zu runs, undecided %d; rows judged "
        "median %d, 90th percentile %d (of %d)\n",
        needed.size(), undecided, needed[needed.size() / 2], needed[needed.size() * 9 / 10], rows);
  }
  return 0;
}
