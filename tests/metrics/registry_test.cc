#include "metrics/registry.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace tala::metrics {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(MetricRegistryTest, NamesAndAliasesAreUniqueSnakeCase) {
  std::set<std::string> seen;
  std::regex snake("^[a-z][a-z0-9_]*$");
  for (const auto& e : MetricRegistry()) {
    std::vector<std::string> names = e.info().aliases;
    names.push_back(e.info().name);
    for (const auto& n : names) {
      EXPECT_TRUE(std::regex_match(n, snake)) << n;
      EXPECT_TRUE(seen.insert(n).second) << "duplicate name " << n;
    }
  }
}

TEST(MetricRegistryTest, EveryMetricHasFieldsASummaryAndAFactory) {
  for (const auto& e : MetricRegistry()) {
    const MetricInfo& info = e.info();
    EXPECT_NE(info.required_fields, 0u) << info.name;
    EXPECT_FALSE(info.summary.empty()) << info.name;
    auto made = e.make({});
    if (!made) {
      // Metrics on the user's own criteria cannot be made without it, and say which option.
      EXPECT_NE(made.error().message().find("needs the option"), std::string::npos)
          << info.name << ": " << made.error().ToString();
      made = e.make({{"name", "x"}, {"definition", "d"}});
      if (!made) made = e.make({{"name", "x"}, {"criteria", "c"}});
      ASSERT_TRUE(made.has_value()) << info.name << ": " << made.error().ToString();
      EXPECT_EQ((*made)->key().rfind(info.name + "(", 0), 0u) << (*made)->key();
      EXPECT_EQ((*made)->key().find("definition"), std::string::npos) << (*made)->key();
      continue;
    }
    EXPECT_EQ((*made)->key(), info.name);
  }
}

TEST(MetricRegistryTest, EveryMetricIsDocumentedAndHasAGoldenRow) {
  std::string docs = ReadFile(std::string(TALA_SOURCE_DIR) + "/docs/metrics.md");
  std::string golden =
      ReadFile(std::string(TALA_SOURCE_DIR) + "/tests/golden/replay_metrics.jsonl");
  for (const auto& e : MetricRegistry()) {
    const std::string& name = e.info().name;
    EXPECT_NE(docs.find("## " + name), std::string::npos)
        << name << " missing from docs/metrics.md";
    EXPECT_NE(golden.find("\"" + name), std::string::npos) << name << " has no golden row";
  }
}

// Every metric the offline judge scores says how far to trust it (`tala metrics`, the reports):
// a figure measured on held-out data and what it misses.
TEST(MetricRegistryTest, EveryMetricTheOfflineJudgeScoresSaysHowFarToTrustIt) {
  for (const auto& entry : metrics::MetricRegistry()) {
    const MetricInfo& m = entry.info();
    const bool offline_undefined = m.offline_note.find("needs an LLM judge") != std::string::npos;
    if (!m.needs_llm || offline_undefined) continue;
    EXPECT_NE(m.offline_measured.find("held-out"), std::string::npos) << m.name;
    EXPECT_FALSE(m.offline_misses.empty()) << m.name;
  }
}

TEST(MetricRegistryTest, AliasesFindTheirMetric) {
  ASSERT_NE(FindMetric("answer_relevancy"), nullptr);
  EXPECT_EQ(FindMetric("answer_relevancy")->info().name, "response_relevancy");
  EXPECT_EQ(FindMetric("llm_context_precision_with_reference")->info().name, "context_precision");
  EXPECT_EQ(FindMetric("nope"), nullptr);
}

TEST(MetricSpecTest, OptionsAfterACommaBelongToThePreviousMetric) {
  auto specs =
      ParseMetricSpecs("faithfulness, factual_correctness:mode=recall,beta=2,context_recall");
  ASSERT_TRUE(specs.has_value());
  ASSERT_EQ(specs->size(), 3u);
  EXPECT_EQ((*specs)[1].name, "factual_correctness");
  EXPECT_EQ((*specs)[1].options.at("mode"), "recall");
  EXPECT_EQ((*specs)[1].options.at("beta"), "2");
  EXPECT_EQ((*specs)[2].name, "context_recall");
}

TEST(MetricSpecTest, EmptyNameAndBadOptionAreErrors) {
  EXPECT_FALSE(ParseMetricSpecs("faithfulness,,context_recall").has_value());
  EXPECT_FALSE(ParseMetricSpecs("factual_correctness:mode").has_value());
  EXPECT_FALSE(ParseMetricSpecs("factual_correctness:mode=a,mode=b").has_value());
}

TEST(MetricSpecTest, UnknownMetricListsTheKnownOnes) {
  auto made = CreateMetrics(*ParseMetricSpecs("faithfullness"));
  ASSERT_FALSE(made.has_value());
  EXPECT_EQ(made.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(made.error().message().find("faithfulness"), std::string::npos);
}

TEST(MetricSpecTest, NameAndAliasTogetherAreScoredOnce) {
  auto made = CreateMetrics(*ParseMetricSpecs("answer_relevancy,response_relevancy"));
  ASSERT_TRUE(made.has_value());
  EXPECT_EQ(made->size(), 1u);
}

}  // namespace
}  // namespace tala::metrics
