// The offline judge on its development sets (bench/data, issue 17): minimal-edit pairs of a
// faithful answer and the same answer with one fact flipped, by phenomenon; and questions with
// an on-topic and an off-topic answer. The floors are the issue's acceptance figures; the
// per-category table in docs/metrics.md comes from bench/offline_contrast.sh.

#include <gtest/gtest.h>

#include <map>

#include "engine/row_scorer.h"
#include "io/readers/dataset_reader.h"
#include "judges/offline/offline_judge.h"
#include "judges/offline/wordnet.h"
#include "metrics/registry.h"

namespace tala::judges::offline {
namespace {

// A metadata field's string value (metadata holds raw JSON: "\"faithful\"").
std::string Meta(const Sample& s, const std::string& key) {
  for (const auto& [k, v] : s.metadata) {
    if (k == key) return v.size() >= 2 && v.front() == '"' ? v.substr(1, v.size() - 2) : v;
  }
  return "";
}

struct Pair {
  double positive = -1, negative = -1;
};

// pair_id -> (score of the `positive` label, score of the other), and each pair's category.
std::map<std::string, Pair> ScorePairs(const std::string& file, const std::string& metric,
                                       const std::string& positive,
                                       std::map<std::string, std::string>* categories) {
  auto reader = io::OpenDataset(std::string(TALA_SOURCE_DIR) + "/bench/data/" + file);
  EXPECT_TRUE(reader.has_value());
  if (!reader) return {};
  OfflineJudge judge;
  auto metrics = metrics::CreateMetrics(*metrics::ParseMetricSpecs(metric));
  RowScorer scorer(*metrics, &judge, judge.name());
  std::map<std::string, Pair> pairs;
  while (auto row = (*reader)->Next()) {
    EXPECT_TRUE(row->has_value());
    const Sample& s = **row;
    double v = scorer.Score(s).scores[0].value.value.value_or(0);
    Pair& p = pairs[Meta(s, "pair_id")];
    (Meta(s, "label") == positive ? p.positive : p.negative) = v;
    if (categories != nullptr) (*categories)[Meta(s, "pair_id")] = Meta(s, "category");
  }
  return pairs;
}

double Won(const Pair& p) {
  return p.positive > p.negative ? 1.0 : p.positive == p.negative ? 0.5 : 0.0;
}

class ContrastSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (WordNet::Get().empty()) GTEST_SKIP() << "wordnet-base is not installed (make deps)";
  }
};

TEST_F(ContrastSetTest, Issue17_FaithfulAnswersOutrankTheirFlippedTwins) {
  std::map<std::string, std::string> categories;
  auto pairs = ScorePairs("contrast-dev.jsonl", "faithfulness", "faithful", &categories);
  ASSERT_GE(pairs.size(), 150u);
  double won = 0;
  std::map<std::string, std::pair<double, int>> by_category;
  for (const auto& [id, p] : pairs) {
    won += Won(p);
    auto& [w, n] = by_category[categories[id]];
    w += Won(p);
    ++n;
  }
  EXPECT_GE(won / pairs.size(), 0.90);
  for (const auto& [category, wn] : by_category) {
    if (wn.second >= 10) {
      EXPECT_GE(wn.first / wn.second, 0.80) << category;
    }
  }
}

TEST_F(ContrastSetTest, Issue17_RelevancyPutsOnTopicAnswersAboveOffTopicOnes) {
  auto pairs = ScorePairs("relevancy-dev.jsonl", "response_relevancy", "on_topic", nullptr);
  ASSERT_GE(pairs.size(), 40u);
  double won = 0, on = 0, off = 0;
  for (const auto& [id, p] : pairs) {
    won += Won(p);
    on += p.positive;
    off += p.negative;
  }
  const double n = static_cast<double>(pairs.size());
  EXPECT_GE(won / n, 0.95);
  EXPECT_GE(on / n, 0.70);
  EXPECT_LE(off / n, 0.30);
}

}  // namespace
}  // namespace tala::judges::offline
