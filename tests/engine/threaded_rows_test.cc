// Rows judged on several threads (engine/threaded_rows.h): a run on any number of threads writes
// the results file and the summary one thread writes; rows are finished in input order; a read
// error or a stop keeps every row judged before it and writes none out of order.

#include "engine/threaded_rows.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "io/reports/console_summary.h"
#include "metrics/registry.h"
#include "support/results_text.h"
#include "support/temp_dir.h"
#include "tala/evaluate.h"

namespace tala {
namespace {

using testing::TempDir;

TEST(ThreadedRowsTest, AnyThreadCountWritesWhatOneThreadWrites) {
  TempDir dir;
  // The example rows three times over, with new ids, so that every thread gets rows and the
  // judges' caches see texts again.
  const std::string data = dir.path() + "/rows.jsonl";
  {
    std::ifstream in(std::string(TALA_SOURCE_DIR) + "/examples/data/interactions.jsonl");
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::ofstream out(data);
    for (int copy = 0; copy < 3; ++copy) {
      for (const std::string& line : lines) {
        out << std::regex_replace(line, std::regex("\"id\": *\"([^\"]*)\""),
                                  "\"id\":\"$1-" + std::to_string(copy) + "\"")
            << "\n";
      }
    }
  }
  std::string first_file, first_summary;
  for (int threads : {1, 3, 8}) {
    EvalOptions o;
    o.dataset = data;
    o.metrics = "all";
    o.threads = threads;
    const std::string name = "results-" + std::to_string(threads) + ".jsonl";
    o.out = dir.path() + "/" + name;
    auto summary = Evaluate(o);
    ASSERT_TRUE(summary.has_value()) << summary.error().ToString();
    EXPECT_EQ(summary->rows_scored, 66);
    RunSummary copy = *summary;
    copy.results_path.clear();
    std::string file = testing::Undated(dir.Read(name)), text = io::FormatSummaryJson(copy);
    if (threads == 1) {
      first_file = file;
      first_summary = text;
      continue;
    }
    EXPECT_EQ(file, first_file) << threads << " threads";
    EXPECT_EQ(text, first_summary) << threads << " threads";
  }
}

// A judge that answers nothing but records which rows it saw, on which thread.
class RecordingJudge : public Judge {
 public:
  RecordingJudge(std::mutex& mutex, std::set<std::thread::id>& threads, std::string cancel_at = "")
      : mutex_(mutex), threads_(threads), cancel_at_(std::move(cancel_at)) {}
  std::string name() const override { return "recording"; }
  Result<Verdicts> Answer(const JudgeQuery& query) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      threads_.insert(std::this_thread::get_id());
    }
    if (query.sample.id == cancel_at_) return Status{ErrorCode::kCancelled, "stopped mid-row"};
    return Verdicts{};
  }

 private:
  std::mutex& mutex_;
  std::set<std::thread::id>& threads_;
  std::string cancel_at_;
};

class JudgeOnThreadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto made = metrics::CreateMetrics({{"faithfulness"}}, {});
    ASSERT_TRUE(made.has_value()) << made.error().ToString();
    metrics_ = std::move(*made);
  }
  // Rows r0..r(n-1); a read error instead of row `fail_at`.
  NextRow Rows(int n, int fail_at = -1) {
    return [this, n, fail_at]() -> Result<std::unique_ptr<Sample>> {
      if (read_ == fail_at) return Status{ErrorCode::kDataError, "rows.jsonl:7: bad row"};
      if (read_ >= n) return std::unique_ptr<Sample>();
      auto s = std::make_unique<Sample>();
      s->id = "r" + std::to_string(read_++);
      s->user_input = "q";
      s->response = "a";
      s->retrieved_contexts = std::vector<std::string>{"c"};
      return s;
    };
  }
  FinishRow Record() {
    return [this](const Sample& s, const Result<Verdicts>&) -> Status {
      finished_.push_back(s.id);
      return OkStatus();
    };
  }
  std::vector<std::string> Expected(int n) {
    std::vector<std::string> ids;
    for (int i = 0; i < n; ++i) ids.push_back("r" + std::to_string(i));
    return ids;
  }
  std::vector<std::unique_ptr<Metric>> metrics_;
  std::mutex mutex_;
  std::set<std::thread::id> threads_;
  int read_ = 0;
  std::vector<std::string> finished_;
};

TEST_F(JudgeOnThreadsTest, RowsAreFinishedInInputOrderAndEveryThreadJudges) {
  RecordingJudge a(mutex_, threads_), b(mutex_, threads_), c(mutex_, threads_);
  RowScorer sa(metrics_, &a, "recording"), sb(metrics_, &b, "recording"),
      sc(metrics_, &c, "recording");
  Status s = JudgeOnThreads({&sa, &sb, &sc}, Rows(250), Record(), nullptr, /*batch_rows=*/16);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(finished_, Expected(250));
  EXPECT_LE(threads_.size(), 3u);
  EXPECT_GE(threads_.size(), 1u);
}

TEST_F(JudgeOnThreadsTest, AReadErrorKeepsTheRowsReadBeforeIt) {
  RecordingJudge a(mutex_, threads_), b(mutex_, threads_);
  RowScorer sa(metrics_, &a, "recording"), sb(metrics_, &b, "recording");
  Status s = JudgeOnThreads({&sa, &sb}, Rows(100, /*fail_at=*/37), Record(), nullptr, 16);
  EXPECT_EQ(s.code(), ErrorCode::kDataError);
  EXPECT_EQ(finished_, Expected(37));
}

TEST_F(JudgeOnThreadsTest, AJudgeStoppedMidRowLeavesThatRowAndLaterOnesUnwritten) {
  RecordingJudge a(mutex_, threads_, "r21"), b(mutex_, threads_, "r21");
  RowScorer sa(metrics_, &a, "recording"), sb(metrics_, &b, "recording");
  Status s = JudgeOnThreads({&sa, &sb}, Rows(100), Record(), nullptr, 16);
  EXPECT_EQ(s.code(), ErrorCode::kCancelled);
  EXPECT_EQ(finished_, Expected(21));
}

TEST_F(JudgeOnThreadsTest, AStopBeforeTheRunWritesNothing) {
  RecordingJudge a(mutex_, threads_), b(mutex_, threads_);
  RowScorer sa(metrics_, &a, "recording"), sb(metrics_, &b, "recording");
  std::atomic<bool> stop{true};
  Status s = JudgeOnThreads({&sa, &sb}, Rows(100), Record(), &stop, 16);
  EXPECT_EQ(s.code(), ErrorCode::kCancelled);
  EXPECT_TRUE(finished_.empty());
}

TEST(ResolveThreadsTest, ZeroMeansOnePerCore) {
  EXPECT_GE(ResolveThreads(0), 1);
  EXPECT_EQ(ResolveThreads(3), 3);
  EXPECT_EQ(ResolveThreads(1000), 64);
}

}  // namespace
}  // namespace tala
