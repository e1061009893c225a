#include "judges/offline/offline_judge.h"

#include <gtest/gtest.h>

#include <optional>

#include "engine/row_scorer.h"
#include "judges/offline/wordnet.h"
#include "metrics/registry.h"

namespace tala::judges::offline {
namespace {

const char* kContext =
    "The Oberoi family is an Indian family that is famous for its involvement in hotels, namely "
    "through The Oberoi Group.The Oberoi Group is a hotel company with its head office in Delhi. "
    "It was founded in 1934 and is not listed abroad.";

Sample Row(const std::string& response) {
  Sample s;
  s.user_input =
      "The Oberoi family is part of a hotel company that has a head office in what city?";
  s.response = response;
  s.reference = "Delhi";
  s.retrieved_contexts = std::vector<std::string>{kContext, "Paris is the capital of France."};
  return s;
}

double Faithfulness(const std::string& response) {
  OfflineJudge judge;
  auto metrics = metrics::CreateMetrics(*metrics::ParseMetricSpecs("faithfulness"));
  Sample s = Row(response);
  return RowScorer(*metrics, &judge, judge.name()).Score(s).scores[0].value.value.value_or(-1);
}

Verdicts Ask(const Sample& s, TaskSet tasks) {
  OfflineJudge judge;
  auto v = judge.Answer({s, tasks});
  EXPECT_TRUE(v.has_value());
  return *v;
}

TEST(OfflineJudgeTest, ShortAnswerIsDecontextualisedAndSupported) {
  Verdicts v = Ask(Row("Delhi"), static_cast<TaskSet>(JudgeTask::kVerifyResponseClaims));
  ASSERT_EQ(v.response_claims->size(), 1u);
  const ClaimVerdict& c = (*v.response_claims)[0];
  EXPECT_NE(c.text.find("answering: The Oberoi family"), std::string::npos);
  EXPECT_TRUE(*c.supported);
  EXPECT_EQ(c.supported_by, std::vector<int>{0});
}

TEST(OfflineJudgeTest, WrongNumberIsRefutedWithAReason) {
  Verdicts v = Ask(Row("The Oberoi Group was founded in 1967."),
                   static_cast<TaskSet>(JudgeTask::kVerifyResponseClaims));
  const ClaimVerdict& c = (*v.response_claims)[0];
  EXPECT_FALSE(*c.supported);
  // The claim's year sits where the context has another one: refuted, naming both.
  EXPECT_NE(c.reason.find("number: context says 'it (oberoi) was founded in 1934'"),
            std::string::npos)
      << c.reason;
  EXPECT_NE(c.reason.find("'1934' where the claim has '1967'"), std::string::npos) << c.reason;
}

TEST(OfflineJudgeTest, AbsentNameAndNegationLowerSupport) {
  EXPECT_GT(Faithfulness("Delhi"), Faithfulness("Mumbai"));
  EXPECT_GT(Faithfulness("The Oberoi Group is a hotel company."),
            Faithfulness("The Oberoi Group is never a hotel company."));
}

TEST(OfflineJudgeTest, FactsGatheredFromDifferentChunksAreWeaker) {
  EXPECT_GT(Faithfulness("The Oberoi Group has its head office in Delhi."),
            Faithfulness("The Oberoi Group has its head office in Paris."));
}

TEST(OfflineJudgeTest, NoncommittalResponseHasNoClaims) {
  EXPECT_TRUE(IsNoncommittal("I don't know the answer."));
  EXPECT_FALSE(IsNoncommittal("Delhi"));
  Verdicts v =
      Ask(Row("I don't know."), JudgeTask::kVerifyResponseClaims | JudgeTask::kGenerateQuestions);
  EXPECT_TRUE(v.response_claims->empty());
  EXPECT_TRUE((*v.generated_questions)[0].noncommittal);
}

TEST(OfflineJudgeTest, ChunkRelevanceAndReferenceTasks) {
  Verdicts v =
      Ask(Row("Delhi"), JudgeTask::kRateChunksForReference | JudgeTask::kAttributeReferenceClaims |
                            JudgeTask::kCheckClaimsAgainstReference |
                            JudgeTask::kFindReferenceClaimsInResponse |
                            JudgeTask::kExtractEntities | JudgeTask::kEmbedResponseAndReference);
  EXPECT_EQ(*v.chunk_relevant, (std::vector<bool>{true, false}));
  EXPECT_TRUE(*(*v.reference_claims)[0].attributed);
  EXPECT_TRUE(*(*v.reference_claims)[0].in_response);
  EXPECT_TRUE(*(*v.response_claims)[0].correct);
  EXPECT_NE(std::find(v.context_entities->begin(), v.context_entities->end(), "delhi"),
            v.context_entities->end());
  EXPECT_NEAR(*v.response_reference_similarity, 1.0, 1e-6);  // float vectors
}

// A reference whose facts are spread over three chunks: each chunk holding one of its sentences
// is useful, although none holds most of the whole; a chunk holding none is not.
TEST(OfflineJudgeTest, AChunkHoldingOneSentenceOfASpreadReferenceIsUseful) {
  Sample s;
  s.user_input = "What do we know about the Larkspur ferry?";
  s.reference =
      "The Larkspur ferry sails every 20 minutes from Pier 3. A single ride costs 2.40 euros "
      "with transfers. Bicycles ride free outside the morning rush hour.";
  s.retrieved_contexts = std::vector<std::string>{
      "Bicycles ride free on the ferry outside the morning rush hour.",
      "The museum opens at ten and closes at six on weekdays.",
      "A single ride on the ferry costs 2.40 euros, with transfers for 90 minutes.",
      "The Larkspur ferry sails every 20 minutes from Pier 3 between 6:00 and 23:00."};
  Verdicts v = Ask(s, static_cast<TaskSet>(JudgeTask::kRateChunksForReference));
  EXPECT_EQ(*v.chunk_relevant, (std::vector<bool>{true, false, true, true}));
}

TEST(OfflineJudgeTest, AnswersEveryTaskDeterministically) {
  TaskSet all = 0;
  for (JudgeTask t : AllJudgeTasks()) all |= static_cast<TaskSet>(t);
  Sample s = Row("The Oberoi Group has its head office in Delhi.");
  Verdicts a = Ask(s, all), b = Ask(s, all);
  for (JudgeTask t : AllJudgeTasks()) EXPECT_TRUE(HasAnswer(a, t)) << JudgeTaskVerdictName(t);
  EXPECT_EQ((*a.response_claims)[0].support_score, (*b.response_claims)[0].support_score);
  EXPECT_EQ((*a.generated_questions)[0].cosine, (*b.generated_questions)[0].cosine);
}

// A judge keeps each chunk's profile for the rows after it (up to a bound, then starts afresh):
// a row judged again after hundreds of others, by the same judge, gets the verdicts a new judge
// gives it.
TEST(OfflineJudgeTest, AChunkSeenBeforeIsJudgedAsItWasFirst) {
  const TaskSet tasks = JudgeTask::kVerifyResponseClaims | JudgeTask::kRateChunksForReference;
  const Sample s = Row("The Oberoi Group has its head office in Mumbai.");
  const Verdicts fresh = Ask(s, tasks);
  OfflineJudge judge;
  auto same = [&](const Verdicts& v) {
    ASSERT_TRUE(v.response_claims && v.chunk_relevant);
    ASSERT_EQ(v.response_claims->size(), fresh.response_claims->size());
    for (size_t i = 0; i < v.response_claims->size(); ++i) {
      EXPECT_EQ((*v.response_claims)[i].support_score, (*fresh.response_claims)[i].support_score);
      EXPECT_EQ((*v.response_claims)[i].reason, (*fresh.response_claims)[i].reason);
    }
    EXPECT_EQ(*v.chunk_relevant, *fresh.chunk_relevant);
  };
  same(*judge.Answer({s, tasks}));
  same(*judge.Answer({s, tasks}));  // its chunks profiled already
  for (int i = 0; i < 600; ++i) {   // past the bound (512 KB of chunks): emptied once
    Sample other = s;
    other.retrieved_contexts = std::vector<std::string>{"Hotel " + std::to_string(i) +
                                                        " is in Goa. " + std::string(1000, 'x')};
    ASSERT_TRUE(judge.Answer({other, tasks}).has_value());
  }
  same(*judge.Answer({s, tasks}));
}

double Relevancy(const Sample& s) {
  Verdicts v = Ask(s, static_cast<TaskSet>(JudgeTask::kGenerateQuestions));
  return (*v.generated_questions)[0].cosine.value_or(-1);
}

// With the sentence encoder, a bare answer of the kind asked for ("Delhi" for "what city") is
// relevant although it repeats none of the question's words, and a bare answer of another kind
// is not; the hand-written and HaluEval sets are measured by bench/offline_trust.py.
TEST(OfflineJudgeTest, TheEncoderReadsABareAnswerForWhatItIs) {
  if (EmbedderName() == "hashed") GTEST_SKIP() << "no sentence encoder";
  EXPECT_GT(Relevancy(Row("Delhi")), 0.6);
  // Below the answer of the kind asked for by a clear margin (issue 52's blend, fitted across
  // six sources, weighs the kind mismatch less than issue 34's did: 0.64 against Delhi's 0.97).
  EXPECT_GT(Relevancy(Row("Delhi")), Relevancy(Row("Arthur's Magazine")) + 0.2);
  EXPECT_GT(Relevancy(Row("Delhi")), Relevancy(Row("It was founded in 1934.")));
}

// A sentence that picks one of the options a question offers, and says what they are compared by,
// answers it; a sentence about one of them does not.
TEST(OfflineJudgeTest, ASentenceThatPicksAnOptionAnswersTheQuestion) {
  if (EmbedderName() == "hashed") GTEST_SKIP() << "no sentence encoder";
  auto row = [](const std::string& response) {
    Sample s = Row(response);
    s.user_input = "Who was born first, Ada Lovelace or Charles Babbage?";
    return s;
  };
  EXPECT_GT(Relevancy(row("Charles Babbage was born first, in 1791.")), 0.7);
  EXPECT_GT(Relevancy(row("Charles Babbage was born first, in 1791.")),
            Relevancy(row("Ada Lovelace (born 1815) was a mathematician.")));
}

// A sentence about something else reads low. (Issue 34 also ordered two hand-picked pairs of
// an answering sentence and one that defines the question's subject; the blend fitted across six
// sources gives that reading almost no weight, as leaving it out costs 0.001 of pairwise accuracy
// on left-out sources, and those two pairs no longer order right: bench/judge_sources.py has
// the answering-sentence figure per source.)
TEST(OfflineJudgeTest, ASentenceAboutSomethingElseReadsLow) {
  if (EmbedderName() == "hashed") GTEST_SKIP() << "no sentence encoder";
  Sample s = Row("The harbour ferry sails every 20 minutes from Pier 3.");
  s.user_input = "Which river flows through the town where the Tollund Brewery was founded?";
  EXPECT_LT(Relevancy(s), 0.25);
}

JudgedAnswer ContextRelevance(const std::vector<std::string>& contexts) {
  Sample s = Row("Delhi");
  s.retrieved_contexts = contexts;
  JudgeQuestion q;
  q.kind = JudgeQuestion::Kind::kRating;
  q.key = q.definition = "context_relevance";
  OfflineJudge judge;
  auto v = judge.Answer({s, static_cast<TaskSet>(JudgeTask::kAnswerQuestions), {q}});
  EXPECT_TRUE(v.has_value());
  auto it = v->answers.find("context_relevance");
  return it == v->answers.end() ? JudgedAnswer{} : it->second;
}

// Two ratings on NVIDIA's 0-2 scale: the page that answers rates high, another page low, and the
// ratings are whole numbers, as the metric checks every judge's are.
TEST(OfflineJudgeTest, ContextRelevanceIsRatedWithTheEncoder) {
  if (EmbedderName() == "hashed") GTEST_SKIP() << "no sentence encoder";
  JudgedAnswer good = ContextRelevance({kContext});
  JudgedAnswer bad = ContextRelevance({"Paris is the capital of France."});
  ASSERT_EQ(good.values.size(), 2u);
  ASSERT_EQ(bad.values.size(), 2u);
  EXPECT_GT(good.values[0] + good.values[1], bad.values[0] + bad.values[1]);
  EXPECT_EQ(bad.values[0] + bad.values[1], 0) << bad.reason;
  for (double r : good.values) EXPECT_TRUE(r == 0 || r == 1 || r == 2) << r;
  EXPECT_NE(good.reason.find("offline estimate"), std::string::npos);
  // The estimate behind the ratings is the expected rating, on the same scale.
  ASSERT_TRUE(good.weighted && bad.weighted);
  EXPECT_GT(*good.weighted, *bad.weighted);
  EXPECT_LE(*good.weighted, 2.0);
}

// An answer that goes on about something else reads lower than the answer alone (Ragas' answer
// relevancy counts redundant text against it); more of the same topic does not.
TEST(OfflineJudgeTest, AnAnswerThatGoesOnAboutSomethingElseReadsLower) {
  if (EmbedderName() == "hashed") GTEST_SKIP() << "no sentence encoder";
  auto asked = [](const std::string& response) {
    Sample s = Row(response);
    s.user_input = "In what city does the Oberoi Group have its head office?";
    return Relevancy(s);
  };
  const std::string answer = "The Oberoi Group has its head office in Delhi.";
  const double alone = asked(answer);
  EXPECT_GT(alone, 0.5);
  EXPECT_LT(asked(answer + " The Eiffel Tower was completed in 1889. It is 330 metres tall."),
            alone - 0.1);
  EXPECT_GT(asked(answer + " The Oberoi Group is a hotel company."), alone - 0.1);
}

// The right page diluted with sentences about something else is a worse context: it reads
// lower, not the same (two whole ratings alone tied nearly every such pair).
TEST(OfflineJudgeTest, ThePageDilutedWithAnotherTopicIsALessRelevantContext) {
  if (EmbedderName() == "hashed") GTEST_SKIP() << "no sentence encoder";
  JudgedAnswer page = ContextRelevance({kContext});
  JudgedAnswer diluted = ContextRelevance(
      {std::string(kContext) +
       " The Eiffel Tower was completed in 1889 for the World's Fair. It is 330 metres tall."});
  ASSERT_TRUE(page.weighted && diluted.weighted);
  EXPECT_GT(*page.weighted, *diluted.weighted);
}

Sample Foreign(const char* question, const char* response, const char* context) {
  Sample s;
  s.user_input = question;
  s.response = response;
  s.retrieved_contexts = std::vector<std::string>{context};
  return s;
}

std::optional<double> Score(const Sample& s, const char* metric, std::string* reason = nullptr) {
  OfflineJudge judge;
  auto metrics = metrics::CreateMetrics(*metrics::ParseMetricSpecs(metric));
  auto row = RowScorer(*metrics, &judge, judge.name()).Score(s);
  if (reason != nullptr) *reason = row.scores[0].value.reason;
  return row.scores[0].value.value;
}

// Rows in other languages are judged by word coverage with their own stemmer (issue 34): a
// Japanese answer that restates its context is faithful, one that changes its facts is not; a
// Finnish or Arabic paraphrase is scored, not 0; relevance, which reads English, is null and
// says why; a language libstemmer lacks is null with its name.
TEST(OfflineJudgeTest, RowsInOtherLanguagesAreJudgedByTheirWords) {
  const char* tower = "東京タワーは東京都港区にある電波塔です。東京タワーは1958年に完成しました。";
  auto ja = Score(
      Foreign("東京タワーはいつ完成しましたか？", "東京タワーは1958年に完成しました。", tower),
      "faithfulness");
  ASSERT_TRUE(ja.has_value());
  EXPECT_GT(*ja, 0.5);
  auto ja_wrong = Score(Foreign("東京タワーはいつ完成しましたか？",
                                "東京タワーは大阪にあり、1970年に完成しました。", tower),
                        "faithfulness");
  ASSERT_TRUE(ja_wrong.has_value());
  EXPECT_LT(*ja_wrong, *ja);
  // A year moved from elsewhere in the context is beyond the words: the row says what was not
  // checked (issue 52 item 7), where an English row's reason has no such note.
  std::string moved;
  ASSERT_TRUE(
      Score(Foreign("東京タワーはいつ完成しましたか？", "東京タワーは1958年に完成しました。",
                    "大阪の通天閣は1956年に完成しました。東京タワーは1958年に完成しました。"),
            "faithfulness", &moved)
          .has_value());
  EXPECT_NE(moved.find("not checked: a value or name moved within the context"), std::string::npos)
      << moved;
  EXPECT_NE(moved.find("not Japanese"), std::string::npos) << moved;
  // A word in Latin letters the context lacks is a name the context lacks; one it holds is not.
  std::string latin;
  const char* station = "RKB毎日放送は福岡県のラジオ局です。";
  EXPECT_LT(*Score(Foreign("福岡県のラジオ局は？", "KBCは福岡県のラジオ局です。", station),
                   "faithfulness", &latin),
            0.5)
      << latin;
  EXPECT_GT(*Score(Foreign("福岡県のラジオ局は？", "rkb毎日放送は福岡県のラジオ局です。", station),
                   "faithfulness"),
            0.5);
  std::string english;
  ASSERT_TRUE(
      Score(Foreign("When was the Tokyo Tower completed?", "The Tokyo Tower was completed in 1958.",
                    "The Tokyo Tower was completed in 1958."),
            "faithfulness", &english)
          .has_value());
  EXPECT_EQ(english.find("not checked"), std::string::npos) << english;

  auto fi = Score(Foreign("Milloin Helsingin tuomiokirkko valmistui?",
                          "Helsingin tuomiokirkko valmistui vuonna 1852.",
                          "Helsingin tuomiokirkko on evankelis-luterilainen kirkko Helsingin "
                          "keskustassa. Kirkon rakentaminen valmistui vuonna 1852, ja sen "
                          "suunnitteli Carl Ludvig Engel."),
                  "faithfulness");
  ASSERT_TRUE(fi.has_value());
  EXPECT_GT(*fi, 0.5);
  auto ar = Score(Foreign("متى تأسست جامعة القاهرة؟", "تأسست جامعة القاهرة في عام 1908.",
                          "جامعة القاهرة هي جامعة حكومية مصرية. تم تأسيس جامعة القاهرة في عام "
                          "1908 وتقع في الجيزة."),
                  "faithfulness");
  ASSERT_TRUE(ar.has_value());
  EXPECT_GT(*ar, 0.5);

  std::string why;
  const Sample finnish = Foreign("Milloin Helsingin tuomiokirkko valmistui?",
                                 "Helsingin tuomiokirkko valmistui vuonna 1852.",
                                 "Helsingin tuomiokirkko valmistui vuonna 1852.");
  EXPECT_FALSE(Score(finnish, "response_relevancy", &why).has_value());
  EXPECT_NE(why.find("English only"), std::string::npos) << why;
  if (EmbedderName() != "hashed") {
    EXPECT_FALSE(Score(finnish, "context_relevance", &why).has_value());
    EXPECT_NE(why.find("English only"), std::string::npos) << why;
  }
  EXPECT_FALSE(Score(Foreign("Kdy byl postaven Karlův most?",
                             "Karlův most byl postaven ve čtrnáctém století.",
                             "Karlův most je nejstarší stojící most přes řeku Vltavu v Praze. "
                             "Jeho stavba začala roku 1357 za vlády Karla IV."),
                     "faithfulness", &why)
                   .has_value());
  EXPECT_NE(why.find("Czech"), std::string::npos) << why;
}

TEST(WordNetTest, SynonymsAntonymsAndIrregularForms) {
  const WordNet& wn = WordNet::Get();
  if (wn.empty()) GTEST_SKIP() << "wordnet-base is not installed (make deps installs it)";
  auto syn = wn.Synonyms("car");
  EXPECT_NE(std::find(syn.begin(), syn.end(), "automobile"), syn.end());
  ASSERT_FALSE(wn.Antonyms("alive").empty());
  EXPECT_EQ(wn.Antonyms("alive")[0], "dead");
  ASSERT_FALSE(wn.BaseForms("wrote").empty());
  EXPECT_EQ(wn.BaseForms("wrote")[0], "write");
  EXPECT_TRUE(wn.BaseForms("write").empty());
  EXPECT_TRUE(wn.IsVerb("supply") && !wn.IsVerb("battery"));
  EXPECT_TRUE(wn.IsProperName("paris") && !wn.IsProperName("table"));
  EXPECT_TRUE(wn.Knows("cities") && !wn.Knows("qzxv"));
}

TEST(WordNetTest, WhatANounsFirstSenseNames) {
  const WordNet& wn = WordNet::Get();
  if (wn.empty()) GTEST_SKIP() << "wordnet-base is not installed (make deps installs it)";
  EXPECT_EQ(wn.FirstNounKind("politician"), NounKind::kPerson);
  EXPECT_EQ(wn.FirstNounKind("actors"), NounKind::kPerson);  // by its singular
  EXPECT_EQ(wn.FirstNounKind("county"), NounKind::kPlace);
  EXPECT_EQ(wn.FirstNounKind("counties"), NounKind::kPlace);
  EXPECT_EQ(wn.FirstNounKind("canada"), NounKind::kPlace);
  EXPECT_EQ(wn.FirstNounKind("band"), NounKind::kGroup);
  EXPECT_EQ(wn.FirstNounKind("stadium"), NounKind::kArtifact);
  EXPECT_EQ(wn.FirstNounKind("idea"), NounKind::kOther);
  EXPECT_EQ(wn.FirstNounKind("quickly"), NounKind::kNone);  // not a noun
  EXPECT_EQ(wn.FirstNounKind("qzxv"), NounKind::kNone);
}

TEST(WordNetTest, MissingDirectoryGivesAnEmptyLexicon) {
  EXPECT_TRUE(WordNet::Load("/nonexistent/wordnet").empty());
  EXPECT_TRUE(WordNet::View("not a table").empty());
}

// The table linked into the program is the one the text files give: every query answers alike.
TEST(WordNetTest, TheLinkedTableAnswersAsTheTextFilesDo) {
  const WordNet& linked = WordNet::Get();
  if (linked.empty()) GTEST_SKIP() << "wordnet-base is not installed (make deps installs it)";
  const WordNet text = WordNet::Load("/usr/share/wordnet");
  EXPECT_EQ(linked.synset_count(), text.synset_count());
  for (std::string_view w : {"car", "alive", "wrote", "born", "supply", "paris", "cities",
                             "bastille", "good", "went", "mice", "better"}) {
    EXPECT_EQ(linked.Synonyms(w), text.Synonyms(w)) << w;
    EXPECT_TRUE(std::equal(linked.Antonyms(w).begin(), linked.Antonyms(w).end(),
                           text.Antonyms(w).begin(), text.Antonyms(w).end()))
        << w;
    EXPECT_TRUE(std::equal(linked.BaseForms(w).begin(), linked.BaseForms(w).end(),
                           text.BaseForms(w).begin(), text.BaseForms(w).end()))
        << w;
    EXPECT_EQ(linked.IsVerb(w), text.IsVerb(w)) << w;
    EXPECT_EQ(linked.IsProperName(w), text.IsProperName(w)) << w;
    EXPECT_EQ(linked.Knows(w), text.Knows(w)) << w;
    EXPECT_EQ(linked.FirstNounKind(w), text.FirstNounKind(w)) << w;
  }
}

}  // namespace
}  // namespace tala::judges::offline
