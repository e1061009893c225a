#include <gtest/gtest.h>

#include <random>

#include "metrics/bleu.h"
#include "metrics/chrf.h"
#include "metrics/registry.h"
#include "metrics/rouge.h"
#include "metrics/string_distance.h"

namespace tala::metrics {
namespace {

using Strings = std::vector<std::string>;

TEST(Tokenize13aTest, SplitsPunctuationButKeepsNumbers) {
  EXPECT_EQ(
      Tokenize13a("Hello, world! It costs $3.50 (approx.)"),
      (Strings{"Hello", ",", "world", "!", "It", "costs", "$", "3.50", "(", "approx", ".", ")"}));
  EXPECT_EQ(Tokenize13a("1,000 people in 2019-2020 &amp; more"),
            (Strings{"1,000", "people", "in", "2019", "-", "2020", "&", "more"}));
}

TEST(StringDistanceTest, LevenshteinOnCodePoints) {
  EXPECT_EQ(LevenshteinDistance(CodePoints("kitten"), CodePoints("sitting")), 3u);
  EXPECT_EQ(LevenshteinDistance(CodePoints("日本語"), CodePoints("日本")), 1u);
  EXPECT_EQ(LevenshteinDistance(CodePoints(""), CodePoints("abc")), 3u);
}

TEST(RougeTest, TokensAreLowerCasedAlphanumerics) {
  EXPECT_EQ(RougeTokens("The CAT's 2 hats!", false), (Strings{"the", "cat", "s", "2", "hats"}));
  EXPECT_EQ(RougeTokens("running", true), (Strings{"run"}));
}

TEST(CutoffTest, KExpandsEveryCutoffMetricOnce) {
  auto specs = ExpandCutoffs(*ParseMetricSpecs("precision,mrr,ndcg@2"), {1, 3});
  auto metrics = CreateMetrics(specs);
  ASSERT_TRUE(metrics.has_value());
  std::vector<std::string> keys;
  for (const auto& m : *metrics) keys.push_back(m->key());
  EXPECT_EQ(keys, (Strings{"precision@1", "precision@3", "mrr", "ndcg@2"}));
}

TEST(CutoffTest, BadKIsRejected) {
  EXPECT_FALSE(CreateMetrics(*ParseMetricSpecs("precision@0")).has_value());
  EXPECT_FALSE(CreateMetrics(*ParseMetricSpecs("recall@x")).has_value());
  EXPECT_FALSE(CreateMetrics(*ParseMetricSpecs("mrr:k=3")).has_value());
}

// Property: every non-LLM metric lies in [0, 1] on random inputs.
TEST(NonLlmPropertyTest, EveryScoreLiesInTheUnitInterval) {
  std::mt19937 rng(7);
  const Strings words = {"the",  "cat",  "sat",   "on",  "mat", "Paris",
                         "café", "日本", "1,000", "3.5", ",",   "."};
  auto text = [&](size_t max_words) {
    std::string s;
    size_t n = rng() % (max_words + 1);
    for (size_t i = 0; i < n; ++i) s += (i ? " " : "") + words[rng() % words.size()];
    return s;
  };
  auto metrics = CreateMetrics(ExpandCutoffs(
      *ParseMetricSpecs("hit_rate,precision,recall,mrr,average_precision,ndcg,r_precision,"
                        "non_llm_context_precision_with_reference,non_llm_context_recall,bleu,"
                        "rouge,rouge:type=rouge1,rouge:type=rouge2,chrf,chrf:word_order=2,"
                        "exact_match,string_presence,non_llm_string_similarity,"
                        "non_llm_string_similarity:distance=hamming,"
                        "non_llm_string_similarity:distance=jaro,"
                        "non_llm_string_similarity:distance=jaro_winkler"),
      {1, 2, 5}));
  ASSERT_TRUE(metrics.has_value());
  for (int trial = 0; trial < 300; ++trial) {
    Sample s;
    s.response = text(12);
    s.reference = trial % 5 == 0 ? *s.response : text(12);
    s.retrieved_contexts = Strings{text(6), text(6)};
    s.reference_contexts = Strings{text(6)};
    Strings ids, ref;
    for (int i = rng() % 6; i > 0; --i) ids.push_back("c" + std::to_string(rng() % 5));
    for (int i = rng() % 4; i > 0; --i) ref.push_back("c" + std::to_string(rng() % 5));
    s.retrieved_context_ids = ids;
    s.reference_context_ids = ref;
    for (const auto& m : *metrics) {
      MetricValue v = m->Score(s, Verdicts{});
      if (!v.value) continue;
      EXPECT_GE(*v.value, 0.0) << m->key();
      EXPECT_LE(*v.value, 1.0 + 1e-12)
          << m->key() << " on '" << *s.response << "' / '" << *s.reference << "'";
    }
  }
}

}  // namespace
}  // namespace tala::metrics

namespace tala::metrics {
namespace {

size_t ReferenceLevenshtein(const std::vector<char32_t>& a, const std::vector<char32_t>& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
    }
  }
  return d[a.size()][b.size()];
}

// The bit-parallel distance must equal the textbook dynamic programme, across block boundaries.
TEST(StringDistanceTest, BitParallelLevenshteinMatchesTheDynamicProgramme) {
  std::mt19937 rng(11);
  const std::u32string alphabet = U"abcdeé日 ";
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<char32_t> a(rng() % 200), b(rng() % 200);
    for (auto& c : a) c = alphabet[rng() % alphabet.size()];
    b = a;  // start similar, then mutate, so distances span the whole range
    for (int edits = rng() % 40; edits > 0; --edits) {
      size_t at = b.empty() ? 0 : rng() % b.size();
      switch (rng() % 3) {
        case 0:
          b.insert(b.begin() + at, alphabet[rng() % alphabet.size()]);
          break;
        case 1:
          if (!b.empty()) b.erase(b.begin() + at);
          break;
        default:
          if (!b.empty()) b[at] = alphabet[rng() % alphabet.size()];
      }
    }
    if (trial % 4 == 0) b.resize(rng() % 150, U'x');
    ASSERT_EQ(LevenshteinDistance(a, b), ReferenceLevenshtein(a, b)) << "trial " << trial;
  }
}

}  // namespace
}  // namespace tala::metrics
