#include "cli/progress_line.h"

#include <cstdio>
#include <string>

namespace tala::cli {

void ProgressLine::Update(const Progress& p) {
  auto now = std::chrono::steady_clock::now();
  const bool last_row = p.rows_total > 0 && p.rows_done == p.rows_total;
  // A terminal redraws ten times a second; a log gets a line every five seconds.
  auto every = terminal_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(5000);
  if (now - last_ < every && !(last_row && p.rows_done != latest_.rows_done)) return;
  last_ = now;
  latest_ = p;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string eta = "-";
  if (p.rows_done > 0 && p.rows_total > p.rows_done) {
    double left = elapsed / static_cast<double>(p.rows_done) *
                  static_cast<double>(p.rows_total - p.rows_done);
    eta = std::to_string(static_cast<long long>(left + 0.5)) + "s";
  }
  char line[256];
  if (terminal_) {
    constexpr int kWidth = 24;
    int filled = p.rows_total > 0 ? static_cast<int>(kWidth * p.rows_done / p.rows_total) : 0;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(kWidth, '.');
    std::snprintf(line, sizeof line,
                  "\r[%s] %lld/%lld rows  in flight %d  cache hits %lld  errors %lld  tokens %lld  "
                  "ETA %s   ",
                  bar.c_str(), static_cast<long long>(p.rows_done),
                  static_cast<long long>(p.rows_total), p.in_flight,
                  static_cast<long long>(p.cache_hits), static_cast<long long>(p.failed_calls),
                  static_cast<long long>(p.tokens), eta.c_str());
    drawn_ = true;
  } else {
    std::snprintf(line, sizeof line,
                  "finished %lld/%lld rows (in flight %d, cache hits %lld, errors %lld, tokens "
                  "%lld, ETA %s)\n",
                  static_cast<long long>(p.rows_done), static_cast<long long>(p.rows_total),
                  p.in_flight, static_cast<long long>(p.cache_hits),
                  static_cast<long long>(p.failed_calls), static_cast<long long>(p.tokens),
                  eta.c_str());
  }
  std::fputs(line, stderr);
}

void ProgressLine::Finish() {
  if (drawn_) std::fputs("\n", stderr);
  drawn_ = false;
}

}  // namespace tala::cli
