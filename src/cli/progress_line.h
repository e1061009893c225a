#pragma once
// The progress display of `tala eval` on stderr: a bar redrawn in place on a terminal (rows
// done/total, calls in flight, cache hits, errors, tokens, ETA), plain lines every few seconds
// otherwise. Only the evaluating thread calls it.

#include <chrono>

#include "tala/evaluate.h"

namespace tala::cli {

class ProgressLine {
 public:
  explicit ProgressLine(bool terminal) : terminal_(terminal) {}
  void Update(const Progress& p);
  // Ends the bar's line (if one was drawn).
  void Finish();

 private:
  bool terminal_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
  Progress latest_;
};

}  // namespace tala::cli
