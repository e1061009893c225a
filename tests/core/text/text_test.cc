#include <gtest/gtest.h>

#include "core/text/normalize.h"
#include "core/text/sentences.h"
#include "core/text/stemmer.h"
#include "core/text/stopwords.h"
#include "core/text/tokenize.h"

namespace tala::text {
namespace {

using Strings = std::vector<std::string>;

TEST(SentencesTest, KeepsAbbreviationsInitialsAndDecimals) {
  EXPECT_EQ(SplitSentences("Dr. Smith arrived at 3.5 p.m. today. J. K. Rowling wrote it. "
                           "The U.S. economy grew."),
            (Strings{"Dr. Smith arrived at 3.5 p.m. today.", "J. K. Rowling wrote it.",
                     "The U.S. economy grew."}));
}

TEST(SentencesTest, SplitsGluedSentencesAndQuestions) {
  EXPECT_EQ(SplitSentences("It ran in the 19th century.First for Women is a magazine. Why? "
                           "Nobody knows!"),
            (Strings{"It ran in the 19th century.", "First for Women is a magazine.", "Why?",
                     "Nobody knows!"}));
}

TEST(SentencesTest, ListsAndLowerCaseContinuations) {
  EXPECT_EQ(SplitSentences("Steps:\n1. Open the lid\n2. Pour\n\nDone, e.g. soup."),
            (Strings{"Steps:\n1. Open the lid\n2. Pour", "Done, e.g. soup."}));
}

TEST(SentencesTest, ClausesSplitOnlyWhenBothSidesAreClaims) {
  EXPECT_EQ(SplitClauses("Paris is the capital of France, and Berlin is the capital of Germany"),
            (Strings{"Paris is the capital of France", "Berlin is the capital of Germany"}));
  EXPECT_EQ(SplitClauses("He bought bread, and milk"), (Strings{"He bought bread, and milk"}));
}

TEST(NormalizeTest, FoldsCaseAndAccents) {
  EXPECT_EQ(FoldForMatching("Die Rhöner SÄUWÄNTZT"), "die rhoner sauwantzt");
  EXPECT_EQ(FoldForMatching("ABC"), "abc");
  EXPECT_TRUE(StartsUpper("Émile"));
  EXPECT_FALSE(StartsUpper("émile"));
}

TEST(TokenizeTest, NumbersPossessivesAndCapitals) {
  auto tokens = Tokenize("Arthur's Magazine was 6.213 km, cost 1,000 dollars.");
  std::vector<std::string> texts;
  for (const auto& t : tokens) texts.push_back(t.text);
  EXPECT_EQ(texts,
            (Strings{"arthur", "magazine", "was", "6.213", "km", "cost", "1000", "dollars"}));
  EXPECT_TRUE(tokens[0].capitalised);
  EXPECT_TRUE(tokens[3].number);
  EXPECT_FALSE(tokens[2].capitalised);
}

TEST(StemmerTest, SnowballEnglish) {
  Stemmer s;
  EXPECT_EQ(s.Stem("published"), "publish");
  EXPECT_EQ(s.Stem("publishing"), "publish");
  EXPECT_EQ(s.Stem("1844"), "1844");
}

TEST(StopwordsTest, FunctionWordsAndNegations) {
  EXPECT_TRUE(IsStopWord("the"));
  EXPECT_FALSE(IsStopWord("magazine"));
  EXPECT_TRUE(IsNegation("never"));
  EXPECT_FALSE(IsNegation("magazine"));
}

}  // namespace
}  // namespace tala::text
