// The offline judge's structure reading (issue 17): the five minimal pairs the issue names, each
// faithful answer above its flipped twin, the twin below 0.5, with a reason naming the cause;
// then one rule at a time.

#include "judges/offline/structure_check.h"

#include <gtest/gtest.h>

#include "engine/row_scorer.h"
#include "judges/offline/offline_judge.h"
#include "judges/offline/wordnet.h"
#include "metrics/registry.h"

namespace tala::judges::offline {
namespace {

struct Scored {
  double faithfulness = -1;
  std::string reason;  // the first claim's
};

Scored Faithfulness(const std::string& question, const std::string& context,
                    const std::string& response) {
  OfflineJudge judge;
  auto metrics = metrics::CreateMetrics(*metrics::ParseMetricSpecs("faithfulness"));
  Sample s;
  s.user_input = question;
  s.response = response;
  s.retrieved_contexts = std::vector<std::string>{context};
  auto verdicts = judge.Answer({s, static_cast<TaskSet>(JudgeTask::kVerifyResponseClaims)});
  EXPECT_TRUE(verdicts.has_value());
  Scored out;
  out.faithfulness =
      RowScorer(*metrics, &judge, judge.name()).Score(s).scores[0].value.value.value_or(-1);
  std::string reasons;
  for (const ClaimVerdict& c : *verdicts->response_claims) {
    if (!c.supported.value_or(true)) reasons += c.reason + "; ";
  }
  out.reason = reasons;
  return out;
}

class MinimalPairTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (WordNet::Get().empty()) GTEST_SKIP() << "wordnet-base is not installed (make deps)";
  }
  // The faithful answer outscores its twin; the twin is under 0.5 for `cause`.
  void Expect(const std::string& question, const std::string& context, const std::string& good,
              const std::string& flipped, const std::string& cause) {
    Scored g = Faithfulness(question, context, good);
    Scored f = Faithfulness(question, context, flipped);
    EXPECT_GT(g.faithfulness, f.faithfulness) << good << " vs " << flipped;
    EXPECT_LT(f.faithfulness, 0.5) << flipped;
    EXPECT_NE(f.reason.find(cause), std::string::npos) << f.reason;
  }
};

TEST_F(MinimalPairTest, Issue17_ClosedOnMondaysRefutesOpenOnMondays) {
  Expect("Is the museum open on Mondays?",
         "The museum is open Tuesday to Sunday from 10am to 6pm. It is closed on Mondays.",
         "No, the museum does not open on Mondays.", "Yes, the museum is open on Mondays.",
         "polarity: context says 'it (museum) is closed on mondays'");
}

TEST_F(MinimalPairTest, Issue17_SwappedReportingLineIsRefuted) {
  Expect("Who does Bob report to?", "Alice manages the Berlin office; Bob reports to her.",
         "Bob reports to Alice, who manages the Berlin office.",
         "Alice reports to Bob, the manager of the Berlin office.",
         "roles: context says 'bob reports to her (alice)'");
}

TEST_F(MinimalPairTest, Issue17_ANameInAnotherSlotIsRefuted) {
  Expect("What is the capital of France?",
         "Paris is the capital of France; Lyon is its third-largest city.",
         "The capital of France is Paris.", "The capital of France is Lyon.",
         "name: context says 'paris is the capital of france', with 'paris' where the claim "
         "has 'lyon'");
}

TEST_F(MinimalPairTest, Issue17_APriceBoundToAnotherGroupIsRefuted) {
  Expect("How much is a child's ticket?",
         "Ticket prices are $12 for adults and $6 for children under 12.",
         "A ticket for a child under 12 costs $6.", "A ticket for a child under 12 costs $12.",
         "number: context says 'and $6 for children under 12', with '$6' where the claim has "
         "'$12'");
}

// Report finding F32: the price is right, the group it is for is not.
TEST_F(MinimalPairTest, F32_TheSamePriceForAnotherGroupIsRefuted) {
  const std::string museum =
      "The museum is open from 9am to 5pm on weekdays. It is closed on Mondays. Entry costs 12 "
      "euros for adults.";
  Expect("What does the museum cost?", museum, "Entry costs 12 euros for adults.",
         "Entry costs 12 euros for children.",
         "substitution: context says 'entry costs €12 euros for adults', with 'adults' where the "
         "claim has 'children'");
  // A word the context states by a synonym, or one it adds around the same slot, is no
  // substitution.
  EXPECT_GT(
      Faithfulness("Who pays 12 euros?", museum, "Entry costs 12 euros for grownups.").faithfulness,
      0.5);
  EXPECT_EQ(Faithfulness("Who pays 12 euros?", museum, "Entry costs 12 euros for adults.")
                .reason.find("substitution"),
            std::string::npos);
}

TEST_F(MinimalPairTest, Issue17_ProfitRoseIsRefutedByProfitFell) {
  Expect("What happened to profit?",
         "The company's revenue rose 12% in 2023, while its profit fell by 3%.",
         "Profit declined by 3 percent.", "Profit increased by 3 percent.",
         "polarity: context says 'while its profit fell by 3'");
}

TEST_F(MinimalPairTest, NegationCarriedByAVerbOrAContraction) {
  Expect("Did the mayor sign the bill?", "The mayor refused to sign the transit bill on Friday.",
         "The mayor did not sign the transit bill.", "The mayor signed the transit bill on Friday.",
         "polarity");
  Expect("Can the form be sent by email?",
         "Applications cannot be submitted by email; use the online portal.",
         "Applications can't be submitted by email.", "Applications can be submitted by email.",
         "polarity");
}

TEST_F(MinimalPairTest, AYearBoundToAnotherEventIsRefuted) {
  Expect("When did Lumen go public?", "Lumen was founded in 1998 and went public in 2004.",
         "Lumen went public in 2004.", "Lumen went public in 1998.",
         "number: context says 'and went public in 2004'");
}

TEST_F(MinimalPairTest, APassiveParaphraseKeepsItsRoles) {
  Scored passive = Faithfulness("Who acquired whom?", "Halden Bank acquired Westbrook Credit.",
                                "Westbrook Credit was acquired by Halden Bank.");
  EXPECT_GT(passive.faithfulness, 0.5) << passive.reason;
  Expect("Who acquired whom?", "Halden Bank acquired Westbrook Credit in 2019.",
         "Westbrook Credit was acquired by Halden Bank in 2019.",
         "Westbrook Credit acquired Halden Bank in 2019.", "roles");
}

TEST_F(MinimalPairTest, SwappedArgumentsOfTwoClausesAreRefuted) {
  Expect("Which drug was the patient given?",
         "The patient is allergic to aspirin, so she was given ibuprofen.",
         "The patient was given ibuprofen.",
         "The patient is allergic to ibuprofen, so she was given aspirin.", "binding");
}

// Check 6: two names in each other's places, with the same words between them, read across the
// sentence (a parenthesis cuts it into segments); a frame that reads both ways, a coordination, a
// genitive or a passive turning the sentence round is no swap.
TEST_F(MinimalPairTest, TwoNamesInEachOthersPlacesAreRefuted) {
  Expect("Where is Lumen Labs based?",
         "Lumen Labs is a software company with its head office in Oslo.",
         "Lumen Labs is a software company with its head office in Oslo.",
         "Oslo is a software company with its head office in Lumen Labs.", "roles");
  Expect("Where was Harbor Review published?",
         "Harbor Review (1901-1950) was a literary magazine published in Boston.",
         "Harbor Review (1901-1950) was a literary magazine published in Boston.",
         "Boston (1901-1950) was a literary magazine published in Harbor Review.",
         "the other way round");
  for (const auto& [context, paraphrase] : std::vector<std::pair<std::string, std::string>>{
           {"Oslo is the capital of Norway.", "Norway's capital is Oslo."},
           {"Anna Berg married Tomas Lind in 1990.", "Tomas Lind married Anna Berg in 1990."},
           {"The film stars Anna Berg and Tomas Lind.", "The film stars Tomas Lind and Anna Berg."},
           {"Arsenal defeated Chelsea in the final.",
            "Chelsea were defeated by Arsenal in the final."},
           {"Cia Berg, also known as Cia Soro, presents the show.",
            "Cia Soro, also known as Cia Berg, presents the show."}}) {
    Scored s = Faithfulness("What does the context say?", context, paraphrase);
    EXPECT_EQ(s.reason.find("the other way round"), std::string::npos) << paraphrase;
    EXPECT_GT(s.faithfulness, 0.5) << paraphrase << ": " << s.reason;
  }
}

// Check 7: two stretches in each other's places, every other word the same, where only
// function words stand between them (check 6 needs a worded frame), as bench/minimal_edits.py
// swaps them in six sources' evidence sentences.
TEST_F(MinimalPairTest, TwoStretchesInEachOthersPlacesAreRefutedWhateverStandsBetween) {
  Expect("Who plays Wonder Woman?",
         "The show stars Lynda Carter as Wonder Woman and Lyle Waggoner as Steve Trevor.",
         "The show stars Lynda Carter as Wonder Woman and Lyle Waggoner as Steve Trevor.",
         "The show stars Wonder Woman as Lynda Carter and Lyle Waggoner as Steve Trevor.",
         "the other way round");
  Expect("Which newspaper led?",
         "It emerged as a leading newspaper of the Soviet Union after the October Revolution.",
         "It emerged as a leading newspaper of the Soviet Union after the October Revolution.",
         "It emerged as a leading newspaper of the October Revolution after the Soviet Union.",
         "the other way round");
  Expect("Who shared her story?",
         "Laura Jeyes, 33, from Northampton, has shared her story with the magazine.",
         "Laura Jeyes, 33, from Northampton, has shared her story with the magazine.",
         "Northampton, 33, from Laura Jeyes, has shared her story with the magazine.",
         "the other way round");
  // The order says nothing: "and", a list, a word that reads both ways; and a claim that is a
  // stretch of the sentence, word for word, is no swap.
  for (const auto& [context, same] : std::vector<std::pair<std::string, std::string>>{
           {"Buses run to Oslo and Bergen every hour.", "Buses run to Bergen and Oslo every hour."},
           {"Paris is the capital of France.", "The capital of France is Paris."},
           {"Anna Berg played Tomas Lind in the final.",
            "Tomas Lind played Anna Berg in the final."},
           {"The museum, founded in 1901, shows Roman coins.", "The museum shows Roman coins."}}) {
    Scored s = Faithfulness("What does the context say?", context, same);
    EXPECT_EQ(s.reason.find("the other way round"), std::string::npos) << same;
  }
}

// Check 6 with words left out of the frame: the claim's frame, auxiliaries aside, within the
// context's and ending on the same word (FEVER's claims are worded shorter than their evidence).
TEST_F(MinimalPairTest, SwappedNamesAreReadThroughAFrameTheClaimShortens) {
  Expect("Who was William Taft?",
         "William Taft (1857-1930) was the 27th president of the United States.",
         "William Taft was the president of the United States.",
         "United States was the president of the William Taft.", "the other way round");
  // Turned round, or a frame ending on another word, is no swap.
  for (const auto& [context, paraphrase] : std::vector<std::pair<std::string, std::string>>{
           {"Oslo is the capital of Norway.", "Norway's capital is Oslo."},
           {"Arsenal defeated Chelsea in the final.", "Chelsea were defeated by Arsenal."}}) {
    Scored s = Faithfulness("What does the context say?", context, paraphrase);
    EXPECT_EQ(s.reason.find("the other way round"), std::string::npos) << paraphrase;
  }
}

// Check 2 reads a name through the sentence it opens: a later clause of "Michael Hutchence
// (1960-1997) was a musician, singer-songwriter and actor who co-founded INXS" is still about
// him, so INXS there does not displace him; a clause with a subject of its own, or a name that is
// not the sentence's subject, still does.
TEST_F(MinimalPairTest, TheSentencesSubjectCarriesThroughItsLaterClauses) {
  for (const auto& [context, claim] : std::vector<std::pair<std::string, std::string>>{
           {"Michael Hutchence (22 January 1960 - 22 November 1997) was an Australian musician, "
            "singer-songwriter and actor who co-founded the rock band INXS.",
            "Michael Hutchence was a singer-songwriter."},
           {"Valencia is the capital of the autonomous community of Valencia and the "
            "third-largest city in Spain after Madrid and Barcelona.",
            "Valencia is a city."}}) {
    Scored s = Faithfulness("Is it true?", context, claim);
    EXPECT_GT(s.faithfulness, 0.5) << claim << ": " << s.reason;
  }
  Expect("Who leads sales?", "Alice Berg manages the team, and Bob Lind leads sales.",
         "Bob Lind leads sales.", "Alice Berg leads sales.", "name");
  Expect("Who was she married to?",
         "Peggy Seeger is an American folksinger. She is also well known in Britain, where she "
         "has lived for 30 years, and was married to the songwriter Ewan MacColl.",
         "She was married to the songwriter Ewan MacColl.",
         "She was married to the songwriter Britain.", "name");
}

TEST_F(MinimalPairTest, AnUnsupportedUniversalIsAnExtension) {
  Expect("When does the shuttle run?",
         "The airport shuttle runs every 20 minutes between 6am and 11pm.",
         "The shuttle runs every 20 minutes from 6am to 11pm.",
         "Anyone can ride the shuttle at any time.", "extension: 'anyone' is not in context");
}

TEST_F(MinimalPairTest, WordsBothTextsShareAreNoPolarityClash) {
  // "lost" and "kept" are WordNet antonyms, but the claim repeats the context's own words.
  Scored s = Faithfulness("How long is lost property kept?",
                          "Lost property is kept for 30 days at the service centre, which is "
                          "open Monday to Saturday.",
                          "Lost property is kept for 30 days at the service centre.");
  EXPECT_GT(s.faithfulness, 0.8) << s.reason;
}

}  // namespace
}  // namespace tala::judges::offline
