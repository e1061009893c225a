// Golden vectors: each row of tests/golden/replay_metrics.jsonl carries hand-written verdicts and
// an "expected" object {metric spec: value or null}; every metric named is scored through the
// replay judge and checked to 1e-4. Adding a case means adding a line.

#include <gtest/gtest.h>
#include <simdjson.h>

#include "engine/conversation_turns.h"
#include "engine/row_scorer.h"
#include "io/readers/dataset_reader.h"
#include "judges/replay_judge.h"
#include "metrics/registry.h"

namespace tala {
namespace {

std::string GoldenPath() {
  return std::string(TALA_SOURCE_DIR) + "/tests/golden/replay_metrics.jsonl";
}

TEST(GoldenTest, EveryRowScoresAsExpected) {
  auto reader = io::OpenDataset(GoldenPath());
  ASSERT_TRUE(reader.has_value());
  judges::ReplayJudge judge;
  int checked = 0;
  while (auto row = (*reader)->Next()) {
    ASSERT_TRUE(row->has_value()) << row->error().ToString();
    const Sample& sample = **row;
    std::string expected_json;
    for (const auto& [k, v] : sample.metadata) {
      if (k == "expected") expected_json = v;
    }
    ASSERT_FALSE(expected_json.empty()) << sample.id;
    simdjson::dom::parser parser;
    simdjson::dom::object expected = parser.parse(expected_json).get_object();
    for (auto [spec, value] : expected) {
      auto metrics = metrics::CreateMetrics(*metrics::ParseMetricSpecs(std::string(spec)));
      ASSERT_TRUE(metrics.has_value()) << metrics.error().ToString();
      RowScorer scorer(*metrics, &judge, judge.name());
      MetricValue got;
      if (sample.is_multi_turn() && ScoresTurns(*metrics)) {
        // A conversation metric: each turn scored, the turns joined as the engine joins them.
        ConversationAssembler assembler(*metrics);
        auto conversation = std::make_shared<const Sample>(sample);
        for (const auto& turn : TurnSamples(conversation)) {
          io::RowResult r = scorer.Score(*turn);
          ASSERT_TRUE(assembler
                          .Add(r,
                               [&](io::RowResult& whole) {
                                 got = whole.scores[0].value;
                                 return OkStatus();
                               })
                          .ok());
        }
      } else {
        got = scorer.Score(sample).scores[0].value;
      }
      SCOPED_TRACE(sample.id + " / " + std::string(spec) + ": " + got.reason);
      if (value.is_null()) {
        EXPECT_FALSE(got.value.has_value());
        EXPECT_FALSE(got.reason.empty());
      } else {
        ASSERT_TRUE(got.value.has_value());
        EXPECT_NEAR(*got.value, double(value), 1e-4);
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 50);
}

}  // namespace
}  // namespace tala
