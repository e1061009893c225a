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
  // 4-5. tala compare --pairwise --sequential: a pair is a win (1), tie (0.5) or loss (0), looked
  // at after each batch of 8 pairs. Nothing changed (wins and losses alike, win rate 0.5) with a
  // --min-win-rate gate at 0.5: any decision is wrong. A clear improvement (35% wins, 10% losses:
  // win rate 0.625) against the same gate: pairs judged until PASS.
  auto pairwise = [&](double win, double loss, std::vector<int>* at_pass) {
    int wrong = 0;
    for (int r = 0; r < runs; ++r) {
      ConfidenceSequence cs(0.05);
      for (int i = 1; i <= rows; ++i) {
        const double x = u(rng);
        cs.Add(x < win ? 1.0 : x < win + loss ? 0.0 : 0.5);
        if (i % 8 != 0 && i != rows) continue;
        if (cs.lower() >= 0.5 && at_pass != nullptr) {
          at_pass->push_back(i);
          break;
        }
        if (cs.lower() > 0.5 || cs.upper() < 0.5) {
          ++wrong;
          break;
        }
      }
    }
    return wrong;
  };
  const int wrong_pairwise = pairwise(0.15, 0.15, nullptr);
  std::vector<int> at_pass;
  const int wrong_improved = pairwise(0.35, 0.10, &at_pass);
  std::sort(at_pass.begin(), at_pass.end());
  std::printf("pairwise, nothing changed, --min-win-rate 0.5: wrong decisions %d (%.1f%%)\n",
              wrong_pairwise, 100.0 * wrong_pairwise / runs);
  if (!at_pass.empty()) {
    std::printf(
        "pairwise, win rate 0.625, --min-win-rate 0.5: decided PASS in %zu runs (wrong FAIL %d); "
        "pairs judged median %d, 90th percentile %d (of %d)\n",
        at_pass.size(), wrong_improved, at_pass[at_pass.size() / 2],
        at_pass[at_pass.size() * 9 / 10], rows);
  }
  return 0;
}
