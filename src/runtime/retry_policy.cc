#include "runtime/retry_policy.h"

#include <algorithm>
#include <charconv>
#include <ctime>
#include <string>

namespace tala::runtime {

bool IsRetryable(ErrorCode code) {
  return code == ErrorCode::kRateLimited || code == ErrorCode::kUnavailable ||
         code == ErrorCode::kDeadlineExceeded || code == ErrorCode::kBadReply;
}

namespace {
std::optional<int64_t> Integer(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}
}  // namespace

std::optional<Duration> ParseRetryAfter(std::string_view retry_after,
                                        std::string_view retry_after_ms, int64_t now_unix_seconds) {
  if (auto ms = Integer(retry_after_ms)) return std::chrono::milliseconds(*ms);
  if (retry_after.empty()) return std::nullopt;
  if (auto seconds = Integer(retry_after)) return std::chrono::seconds(*seconds);
  std::tm tm{};
  std::string text(retry_after);
  if (strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm) == nullptr) return std::nullopt;
  int64_t when = timegm(&tm);
  return std::chrono::seconds(std::max<int64_t>(0, when - now_unix_seconds));
}

std::optional<Duration> RetryPolicy::Delay(ErrorCode code, int retry,
                                           std::optional<Duration> retry_after) {
  if (!IsRetryable(code) || retry > options_.max_retries) return std::nullopt;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  if (retry_after) {
    // The server's word, plus up to 10% so that many waiting calls do not return at once.
    auto extra = std::chrono::duration<double>(*retry_after) * (0.1 * unit(rng_));
    return *retry_after + std::chrono::duration_cast<Duration>(extra);
  }
  auto cap = std::chrono::duration<double>(options_.max_delay);
  auto exp =
      std::chrono::duration<double>(options_.base_delay) * double(1ull << std::min(retry - 1, 30));
  auto ceiling = std::min(cap, exp);
  // Full jitter between half the ceiling and the ceiling: spread out, never immediate.
  return std::chrono::duration_cast<Duration>(ceiling * (0.5 + 0.5 * unit(rng_)));
}

}  // namespace tala::runtime
