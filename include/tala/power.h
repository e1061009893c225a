#pragma once
// Power: sample sizes for evaluation sets, shared by `tala power` and the Python package. Either
// the margin of error of a score (p and n), or the rows needed to tell two systems apart (p1 and
// p2; paired with the share of discordant rows when both score the same rows). Pure.

#include <optional>
#include <string>

#include "tala/status.h"

namespace tala {

struct PowerQuery {
  std::optional<double> p;  // a score (a proportion), with n
  std::optional<long> n;    // rows the score is measured on
  std::optional<double> p1, p2;
  bool paired = false;
  std::optional<double> discordant;  // paired: expected share of rows the systems disagree on
  double alpha = 0.05;               // two-sided significance level
  double power = 0.8;                // chance to detect the difference
};

struct PowerAnswer {
  std::string kind;          // margin | independent | paired
  double margin = 0;         // margin: half-width of the interval
  double low = 0, high = 0;  // margin: the interval
  long rows = 0;             // independent (per system) or paired: rows needed, rounded up
  std::string text;          // the sentence `tala power` prints
};

// kInvalidArgument for a query that asks nothing, values out of range, or a paired difference
// larger than the discordant share allows.
Result<PowerAnswer> Power(const PowerQuery& query);

}  // namespace tala
