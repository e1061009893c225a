#pragma once
// Pairwise verdicts: `tala compare BASE CANDIDATE --pairwise`. For each row both runs answered,
// which answer is better on a criterion, rather than two scores set side by side. An LLM judge is
// shown the question, the passages and both answers (as data: one JSON object {"A": ..., "B":
// ...}) and asked A, B or tie, twice with the order swapped; a verdict that follows the position
// rather than the answer is a tie, and how often that happened is the position bias. The offline
// judge, which answers no such question, compares its own readings of the two answers (the
// criterion's metric in each results file). Call from one thread.

#include <optional>
#include <string>
#include <vector>

#include "tala/evaluate.h"
#include "tala/status.h"

namespace tala {

struct PairwiseOptions {
  std::string base, candidate;  // results files (their rows carry the texts)
  // grounded | relevant | complete, or a criterion in the user's own words.
  std::string criterion = "grounded";
  // The judge and its settings (judge "offline": from the readings; else an LLM judge).
  EvalOptions eval;
  // Offline: two readings closer than this are a tie.
  double tie_margin = 0.05;
  // --sequential (LLM judges): pairs judged in a seeded random order, a batch at a time, until
  // an anytime-valid confidence sequence on the win rate decides the gate (min_win_rate) or is
  // narrower than target_width; the pairs left are not judged. Needs a gate or a width.
  struct Sequential {
    bool on = false;
    double alpha = 0.05;
    uint64_t seed = 42;        // of the order
    double min_win_rate = -1;  // < 0: no gate
    double target_width = 0;   // > 0: stop once the interval is this narrow
    int batch_pairs = 0;       // pairs judged between looks; 0: the judge's max in flight
  } sequential;
};

struct PairwiseRow {
  std::string id;
  std::string verdict;        // win | tie | loss (for the candidate)
  std::string first, second;  // LLM: what each order chose for the candidate ("better",
                              // "worse", "tie"); offline: the two readings
};

struct PairwiseReport {
  std::string criterion, judge;
  int64_t pairs = 0, wins = 0, ties = 0, losses = 0;
  double win_rate = 0, low = 0, high = 0;  // (wins + ties / 2) / pairs, with its 95% interval
  // LLM: the share of pairs whose two orders picked the same position (A both times, or B):
  // the verdict followed the order, not the answers. nullopt offline.
  std::optional<double> position_bias;
  int64_t unpaired = 0;           // candidate rows without a base row, or an answer
  std::vector<PairwiseRow> rows;  // every pair, in the candidate's order
  std::vector<std::string> notes;
  int64_t judge_calls = 0;
  // --sequential: how it ended. `decided` when the confidence sequence decided the gate (before
  // every pair was judged, or at the last one), `passed` its verdict; `narrow` when it stopped
  // on the width instead (a gate it did not decide is read from the pairs judged).
  struct Stop {
    bool gated = false;  // a --min-win-rate gate was given
    bool decided = false, passed = false, narrow = false;
    double low = 0, high = 1;  // the confidence sequence's interval at the stop
    int64_t pairs_total = 0;   // pairs both runs answered
    std::vector<std::string> not_judged;
  };
  std::optional<Stop> sequential;
};

// kInvalidArgument for an unknown judge, or an offline criterion whose metric neither file
// scored; errors of reading the files and of the judge as Evaluate gives them.
Result<PairwiseReport> ComparePairwise(const PairwiseOptions& options);
std::string FormatPairwise(const PairwiseReport& report);
std::string PairwiseJson(const PairwiseReport& report);

}  // namespace tala
