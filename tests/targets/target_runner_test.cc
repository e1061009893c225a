// The target runner's scheduling on a ManualClock with a target that answers at once: the
// requests-per-minute limit holds exactly, with no sleeps and no timing assertions.

#include "targets/target_runner.h"

#include <gtest/gtest.h>

#include <deque>

namespace tala::targets {
namespace {

// Answers every call on the next Poll, and notes the clock time of each start.
class InstantTarget : public Target {
 public:
  explicit InstantTarget(runtime::Clock& clock) : clock_(clock) {}
  void Start(const TargetCall& call, std::chrono::milliseconds, TargetCallback done) override {
    starts.push_back(clock_.Now());
    pending_.push_back({call.id, std::move(done)});
  }
  void Poll(std::chrono::milliseconds) override {
    auto pending = std::move(pending_);
    pending_.clear();
    for (auto& [id, done] : pending) done(TargetReply{"{\"answer\":\"" + id + "\"}", ""});
  }
  int in_flight() const override { return static_cast<int>(pending_.size()); }
  void CancelAll() override { pending_.clear(); }
  std::vector<runtime::TimePoint> starts;

 private:
  runtime::Clock& clock_;
  std::deque<std::pair<std::string, TargetCallback>> pending_;
};

TEST(TargetRunnerTest, RequestsPerMinuteHoldOverAnyMinute) {
  runtime::ManualClock clock;
  InstantTarget target(clock);
  int next = 0, done = 0;
  RunnerOptions options;
  options.max_in_flight = 8;
  options.requests_per_minute = 60;  // one a second, a burst of 6 (a tenth of a minute)
  RunnerCounts counts;
  Status s = RunCalls(
      target, options,
      [&]() -> std::optional<TargetCall> {
        if (next == 30) return std::nullopt;
        return TargetCall{"r" + std::to_string(next++), "{}"};
      },
      [&](int64_t, CallOutcome o) {
        EXPECT_TRUE(o.reply.has_value());
        ++done;
        return OkStatus();
      },
      nullptr, counts, nullptr, clock);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(done, 30);
  ASSERT_EQ(target.starts.size(), 30u);
  // After the burst, one call a second: the 30th starts 24 s after the first.
  auto span = std::chrono::duration_cast<std::chrono::milliseconds>(target.starts.back() -
                                                                    target.starts.front());
  EXPECT_GE(span.count(), 23000);
  EXPECT_LE(span.count(), 25000);
  for (size_t i = 0; i + 7 < target.starts.size(); ++i) {
    // No 7 calls inside one second: the bucket never lends more than it holds.
    EXPECT_GE(target.starts[i + 7] - target.starts[i], std::chrono::milliseconds(999));
  }
}

}  // namespace
}  // namespace tala::targets
