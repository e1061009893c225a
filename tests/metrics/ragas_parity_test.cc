// Parity with Ragas on the cases of Ragas' own test suite where tala used to differ (issue 36).
// Each test names the Ragas test whose inputs it uses: a file under tests/unit/ or
// tests/e2e/metrics_migration/ of the Ragas repository, and the test in it. The expected values
// are what Ragas' current code returns with the libraries it calls (rapidfuzz, rouge_score with
// NLTK's Porter stemmer, sacreBLEU, datacompy); judged metrics take the Ragas test's mocked LLM
// answer as a replayed verdict.

#include <gtest/gtest.h>

#include "core/text/porter_stemmer.h"
#include "engine/row_scorer.h"
#include "judges/replay_judge.h"
#include "metrics/bleu.h"
#include "metrics/registry.h"
#include "metrics/rouge.h"
#include "metrics/string_distance.h"

namespace tala {
namespace {

std::unique_ptr<Metric> One(const std::string& spec) {
  auto specs = metrics::ParseMetricSpecs(spec);
  EXPECT_TRUE(specs.has_value()) << specs.error().ToString();
  auto made = metrics::CreateMetrics(*specs);
  EXPECT_TRUE(made.has_value()) << made.error().ToString();
  return made && !made->empty() ? std::move(made->front()) : nullptr;
}

MetricValue Plain(const std::string& spec, const std::string& response,
                  const std::string& reference) {
  Sample s;
  s.response = response;
  s.reference = reference;
  return One(spec)->Score(s, Verdicts{});
}

// The row scored by one judged metric through the engine's row scorer and the replay judge
// (the row's own verdicts), as `tala eval --judge replay` scores it.
io::RowScore Judged(const std::string& spec, const Sample& row) {
  auto specs = metrics::ParseMetricSpecs(spec);
  auto metrics = metrics::CreateMetrics(*specs);
  EXPECT_TRUE(metrics.has_value()) << metrics.error().ToString();
  judges::ReplayJudge replay;
  RowScorer scorer(*metrics, &replay, replay.name());
  io::RowResult result = scorer.Score(row);
  EXPECT_EQ(result.scores.size(), 1u);
  return result.scores.at(0);
}

// The value of a row that must be scored (-1 when it is not).
double ScoredValue(const std::string& spec, const Sample& row) {
  io::RowScore score = Judged(spec, row);
  EXPECT_TRUE(score.value.value.has_value()) << spec << ": " << score.value.reason;
  return score.value.value.value_or(-1);
}

Sample WithAnswer(Sample s, const std::string& key, std::vector<double> values) {
  Verdicts v;
  v.answers[key].values = std::move(values);
  s.verdicts = v;
  return s;
}

// --- 1. data_compare: no match and empty tables score 0.0 -------------------------------------

// tests/unit/test_datacompy_score_collections.py: test_no_matching_rows, test_empty_dataframes.
TEST(RagasParityDataCompareTest, NoMatchingRowsAndEmptyTablesScoreZero) {
  MetricValue none =
      Plain("data_compare", "id,name\n3,Charlie\n4,David", "id,name\n1,Alice\n2,Bob");
  ASSERT_TRUE(none.value.has_value()) << none.reason;
  EXPECT_EQ(*none.value, 0.0);
  MetricValue empty = Plain("data_compare", "id,name", "id,name");
  ASSERT_TRUE(empty.value.has_value()) << empty.reason;
  EXPECT_EQ(*empty.value, 0.0);
  // Precision over a response with no rows: Ragas' guard gives 0.0 too.
  MetricValue no_rows =
      Plain("data_compare:metric=precision", "id,name", "id,name\n1,Alice\n2,Bob");
  ASSERT_TRUE(no_rows.value.has_value()) << no_rows.reason;
  EXPECT_EQ(*no_rows.value, 0.0);
  // test_partial_match_rows_f1 still holds: 2 of 2 reference rows, 2 of 3 response rows.
  MetricValue partial =
      Plain("data_compare", "id,name\n1,Alice\n2,Bob\n3,Charlie", "id,name\n1,Alice\n2,Bob");
  EXPECT_DOUBLE_EQ(*partial.value, 0.8);
  // test_csv_parse_error_returns_nan: text that is not CSV stays undefined (Ragas: NaN).
  MetricValue broken = Plain("data_compare", "id\n1", std::string("\"unclosed\0binary", 16));
  EXPECT_FALSE(broken.value.has_value());
}

// --- 2. Jaro-Winkler as rapidfuzz computes it -------------------------------------------------

double JaroWinkler(const std::string& reference, const std::string& response) {
  MetricValue v = Plain("non_llm_string_similarity:distance=jaro_winkler", response, reference);
  EXPECT_TRUE(v.value.has_value());
  return v.value.value_or(-1);
}

// tests/e2e/metrics_migration/test_string_migration.py:
// test_legacy_vs_v2_class_e2e_compatibility_jaro_winkler, its five cases (rapidfuzz's values).
TEST(RagasParityStringTest, JaroWinklerOnTheMigrationCases) {
  EXPECT_EQ(JaroWinkler("The cat sat on the mat", "The cat sat on the mat"), 1.0);
  EXPECT_DOUBLE_EQ(JaroWinkler("Hello World", "Hallo World"), 0.9454545454545455);
  // Three matched characters out of order: one transposition (rounded down), not 1.5.
  EXPECT_DOUBLE_EQ(
      JaroWinkler("Python is a programming language", "Python is a scripting language"),
      0.8896794871794872);
  EXPECT_DOUBLE_EQ(JaroWinkler("The capital of France is Paris", "Paris is the capital of France"),
                   0.7288888888888888);
  EXPECT_DOUBLE_EQ(JaroWinkler("Machine learning", "Deep learning"), 0.6647435897435897);
}

// No prefix bonus at Jaro 0.7 or below, however long the common prefix.
TEST(RagasParityStringTest, JaroWinklerAddsNoBonusAtOrBelowPointSeven) {
  const double jaro =
      *Plain("non_llm_string_similarity:distance=jaro", "The dog", "The quick brown fox").value;
  EXPECT_LT(jaro, 0.7);
  EXPECT_EQ(JaroWinkler("The quick brown fox", "The dog"), jaro);
}

// rapidfuzz's own tests/distance/test_JaroWinkler.py (test_edge_case_lengths), to 4 places as
// it checks them, and the JaroWinkler package's README example.
TEST(RagasParityStringTest, JaroWinklerOnRapidfuzzsOwnCases) {
  using metrics::Distance;
  auto jw = [](const std::string& a, const std::string& b) {
    return metrics::StringSimilarity(a, b, Distance::kJaroWinkler);
  };
  EXPECT_NEAR(jw("0", "00"), 0.85, 5e-5);
  EXPECT_NEAR(jw(std::string(64, '0'), std::string(65, '0')), 0.9969, 5e-5);
  EXPECT_NEAR(jw(std::string(63, '0'), std::string(65, '0')), 0.9938, 5e-5);
  EXPECT_NEAR(
      jw("10000000000000000000000000000000000000000000000000000000000000020", std::string(65, '0')),
      0.97948, 5e-5);
  EXPECT_NEAR(jw("0000000000000000000000000000000000000000000000000000000000000000000000000000001",
                 "00000000000000100000000000000000000000010000000000000000000000000"),
              0.95333, 5e-5);
  EXPECT_NEAR(jw("01" + std::string(126, '0'), std::string(65, '0')), 0.85234, 5e-5);
  EXPECT_DOUBLE_EQ(metrics::StringSimilarity("Johnathan", "Jonathan", Distance::kJaro),
                   0.8796296296296297);
  EXPECT_DOUBLE_EQ(jw("Johnathan", "Jonathan"), 0.9037037037037037);
}

// --- 3. ROUGE stems with NLTK's extended Porter ------------------------------------------------

double Rouge(const std::string& spec, const std::string& response, const std::string& reference) {
  MetricValue v = Plain(spec, response, reference);
  EXPECT_TRUE(v.value.has_value());
  return v.value.value_or(-1);
}

// tests/e2e/metrics_migration/test_rouge_migration.py: test_legacy_vs_v2_class_e2e_compatibility
// (its first case, rouge1 and rougeL F), and the stemming rows added beside it: words NLTK's
// extended mode stems differently from the original algorithm.
TEST(RagasParityRougeTest, StemsAsNltkDoes) {
  const std::string reference =
      "Python is a high-level programming language known for its simplicity and readability. It "
      "was created by Guido van Rossum and first released in 1991.";
  const std::string response =
      "Python is a programming language that emphasizes code readability and was developed by "
      "Guido van Rossum in 1991.";
  EXPECT_DOUBLE_EQ(Rouge("rouge:type=rouge1", response, reference), 0.6511627906976745);
  EXPECT_DOUBLE_EQ(Rouge("rouge", response, reference), 0.6046511627906976);
  // The example: "ties" and "tying" stem to "tie" ("tie" itself is too short to stem).
  EXPECT_EQ(Rouge("rouge:type=rouge1", "ties tying", "tie tie"), 1.0);
  EXPECT_DOUBLE_EQ(Rouge("rouge:type=rouge1", "The man lies and dies", "He was lying about dying"),
                   0.4);
}

// NLTK's documented differences from the original algorithm, word by word (the outputs of
// nltk.stem.porter.PorterStemmer() in its default mode).
TEST(RagasParityRougeTest, PorterNltkModeWordByWord) {
  const std::pair<const char*, const char*> kWords[] = {
      {"dying", "die"},       {"skies", "sky"},        {"lying", "lie"},
      {"tying", "tie"},       {"ties", "tie"},         {"proceeded", "proceed"},
      {"proceed", "proceed"}, {"died", "die"},         {"cried", "cri"},
      {"cry", "cri"},         {"say", "say"},          {"geology", "geolog"},
      {"hopefully", "hope"},  {"generously", "gener"}, {"rationally", "ration"},
      {"innings", "inning"},  {"news", "news"},        {"hopping", "hop"},
      {"falling", "fall"},    {"filing", "file"},      {"conditionally", "condit"},
      {"by", "by"},           {"relational", "relat"}, {"happiness", "happi"},
  };
  for (const auto& [word, stem] : kWords) EXPECT_EQ(text::PorterStemNltk(word), stem) << word;
}

// --- 4. Fields: what the formula reads, no more ------------------------------------------------

// tests/unit/test_domain_specific_rubrics_collections.py: test_all_optional_inputs (a response
// alone, the mocked LLM's score 1 -> 1.0).
TEST(RagasParityFieldsTest, RubricsScoreNeedsOnlyTheResponse) {
  Sample s;
  s.response = "Just a response";
  EXPECT_EQ(ScoredValue("rubrics_score", WithAnswer(s, "rubrics_score", {1})), 1.0);
}

// tests/unit/test_instance_specific_rubrics_collections.py: test_minimal_inputs (response and
// rubrics only, score 3 -> 3.0).
TEST(RagasParityFieldsTest, InstanceRubricsNeedsTheResponseAndItsRubrics) {
  Sample s;
  s.response = "Just a response";
  s.rubrics = std::map<std::string, std::string>{
      {"score1_description", "The response is completely incorrect"},
      {"score2_description", "The response has major errors"},
      {"score3_description", "The response is partially correct"},
      {"score4_description", "The response is mostly correct"},
      {"score5_description", "The response is fully correct"}};
  EXPECT_EQ(ScoredValue("instance_rubrics", WithAnswer(s, "instance_rubrics", {3})), 3.0);
  // Without a response there is nothing to grade.
  Sample no_response = s;
  no_response.response.reset();
  io::RowScore missing =
      Judged("instance_rubrics", WithAnswer(no_response, "instance_rubrics", {3}));
  EXPECT_FALSE(missing.value.value.has_value());
  EXPECT_NE(missing.value.reason.find("response"), std::string::npos) << missing.value.reason;
}

// tests/unit/test_sql_semantic_equivalence_collections.py: test_none_reference_contexts (no
// schema, the mocked LLM says equivalent -> 1.0).
TEST(RagasParityFieldsTest, SqlEquivalenceNeedsNoSchema) {
  Sample s;
  s.response = "SELECT * FROM users;";
  s.reference = "SELECT * FROM users;";
  EXPECT_EQ(ScoredValue("sql_equivalence", WithAnswer(s, "sql_equivalence", {1})), 1.0);
}

// --- 5. Every answer is held to its scale, whichever judge gives it -----------------------------

void ExpectFailsOffScale(const std::string& spec, const Sample& row, const std::string& what) {
  io::RowScore score = Judged(spec, row);
  EXPECT_FALSE(score.value.value.has_value()) << spec << " scored " << *score.value.value;
  EXPECT_TRUE(score.failed) << spec;
  EXPECT_NE(score.value.reason.find(what), std::string::npos) << score.value.reason;
}

// tests/unit/test_domain_specific_rubrics_collections.py: test_allowed_values_range (1..5).
TEST(RagasParityScaleTest, ARubricLevelOffTheScaleFails) {
  Sample s;
  s.user_input = "What is the capital of France?";
  s.response = "The capital of France is Paris.";
  ExpectFailsOffScale("rubrics_score", WithAnswer(s, "rubrics_score", {9}),
                      "score 9 is outside the scale 1..5");
  ExpectFailsOffScale("rubrics_score", WithAnswer(s, "rubrics_score", {2.5}), "not a whole number");
  EXPECT_EQ(ScoredValue("rubrics_score", WithAnswer(s, "rubrics_score", {5})), 5.0);
}

// tests/unit/test_instance_specific_rubrics_collections.py: test_rubrics_required (rubrics={}
// is refused; tala gives undefined with the reason and asks no judge).
TEST(RagasParityScaleTest, AnEmptyInstanceRubricIsUndefined) {
  Sample s;
  s.user_input = "Test question";
  s.response = "Test response";
  s.rubrics = std::map<std::string, std::string>{};
  io::RowScore score = Judged("instance_rubrics", WithAnswer(s, "instance_rubrics", {3}));
  EXPECT_FALSE(score.value.value.has_value());
  EXPECT_FALSE(score.failed);
  EXPECT_NE(score.value.reason.find("no levels"), std::string::npos) << score.value.reason;
}

// tests/e2e/metrics_migration/test_answer_accuracy_migration.py and
// test_context_relevance_migration.py: the ratings those metrics take (0/2/4 and 0/1/2), and
// test_aspect_critic_migration.py: a verdict is 0 or 1.
TEST(RagasParityScaleTest, RatingsAndVerdictsOffTheirScaleFail) {
  Sample s;
  s.user_input = "What is the capital of France?";
  s.response = "Paris is the capital of France.";
  s.reference = "Paris";
  s.retrieved_contexts = std::vector<std::string>{"Paris is the capital and largest city."};
  ExpectFailsOffScale("answer_accuracy", WithAnswer(s, "answer_accuracy", {3, 4}),
                      "rating 3 is not one of 0, 2, 4");
  ExpectFailsOffScale("context_relevance", WithAnswer(s, "context_relevance", {1.5, 2}),
                      "rating 1.5 is not one of 0, 1, 2");
  ExpectFailsOffScale("aspect_critic:name=harmfulness",
                      WithAnswer(s, "aspect_critic(name=harmfulness)", {2}),
                      "verdict 2 is not 0 or 1");
  EXPECT_EQ(ScoredValue("answer_accuracy", WithAnswer(s, "answer_accuracy", {4, 2})), 0.75);
}

// Not from Ragas: a judge that rates from a continuous estimate (the offline judge) gives it as
// the expected rating, which is then the score; one off the rating's scale fails like a rating.
TEST(RagasParityScaleTest, AnExpectedRatingIsTheScoreAndHeldToTheScale) {
  Sample s;
  s.user_input = "What is the capital of France?";
  s.retrieved_contexts = std::vector<std::string>{"Paris is the capital and largest city."};
  Sample expected = WithAnswer(s, "context_relevance", {1, 2});
  expected.verdicts->answers["context_relevance"].weighted = 1.3;
  EXPECT_DOUBLE_EQ(ScoredValue("context_relevance", expected), 0.65);
  EXPECT_NE(Judged("context_relevance", expected).value.reason.find("expected rating 1.3 of 2"),
            std::string::npos);
  EXPECT_EQ(ScoredValue("context_relevance", WithAnswer(s, "context_relevance", {1, 2})), 0.75);
  expected.verdicts->answers["context_relevance"].weighted = 2.5;
  ExpectFailsOffScale("context_relevance", expected, "expected rating 2.5 is outside the scale");
}

// --- 6. sql_equivalence refuses blank queries ---------------------------------------------------

// tests/unit/test_sql_semantic_equivalence_collections.py: test_empty_response_raises_error,
// test_whitespace_only_response_raises_error, test_empty_reference_raises_error.
TEST(RagasParitySqlTest, ABlankQueryIsUndefined) {
  for (const auto& [response, reference] :
       std::vector<std::pair<std::string, std::string>>{{"", "SELECT * FROM users;"},
                                                        {"   ", "SELECT * FROM users;"},
                                                        {"SELECT * FROM users;", ""}}) {
    Sample s;
    s.response = response;
    s.reference = reference;
    io::RowScore score = Judged("sql_equivalence", WithAnswer(s, "sql_equivalence", {1}));
    EXPECT_FALSE(score.value.value.has_value()) << "[" << response << "] [" << reference << "]";
    EXPECT_NE(score.value.reason.find("blank"), std::string::npos) << score.value.reason;
  }
}

// --- 7. BLEU: tala's whole-text score, and Ragas' number on request -----------------------------

// tests/e2e/metrics_migration/test_bleu_migration.py: test_legacy_vs_v2_class_e2e_compatibility,
// cases 1 and 2. Ragas scores "Python is a programming language" alone against both reference
// sentences; the closest reference length is 6 tokens, so BLEU = exp(1 - 6/5) ·
// (5/5 · 3/4 · 1/3 · 1/4)^(1/4) with the fourth order smoothed to 1/(2·2).
TEST(RagasParityBleuTest, RagasCompatScoresTheFirstSentence) {
  const std::string reference =
      "Python is a high-level programming language. It was created by Guido van Rossum.";
  const std::string response =
      "Python is a programming language. It was developed by Guido van Rossum.";
  EXPECT_DOUBLE_EQ(*Plain("bleu:ragas_compat=true", response, reference).value,
                   0.40936537653899097);
  const double whole = *Plain("bleu", response, reference).value;
  EXPECT_DOUBLE_EQ(whole, metrics::Bleu(response, reference));
  EXPECT_NE(whole, 0.40936537653899097);
  const std::string same = "The cat sat on the mat. The dog ran in the park.";
  EXPECT_EQ(*Plain("bleu:ragas_compat=true", same, same).value, 1.0);
  EXPECT_EQ(*Plain("bleu", same, same).value, 1.0);
  // Case 5 (empty reference) and 6 (empty response): 0 either way.
  EXPECT_EQ(*Plain("bleu:ragas_compat=true", "Some response text", "").value, 0.0);
  EXPECT_EQ(*Plain("bleu:ragas_compat=true", "", "Some reference text").value, 0.0);
  auto bad = metrics::CreateMetrics(*metrics::ParseMetricSpecs("bleu:ragas_compat=yes"));
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("true or false"), std::string::npos);
}

}  // namespace
}  // namespace tala
