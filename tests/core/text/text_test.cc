#include <gtest/gtest.h>

#include <algorithm>

#include "core/text/language.h"
#include "core/text/normalize.h"
#include "core/text/sentences.h"
#include "core/text/stemmer.h"
#include "core/text/stopwords.h"
#include "core/text/tokenize.h"
#include "core/text/word_sets.h"

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

// Chinese, Japanese and Thai write words without spaces: ICU's word breaker finds them, with
// their byte offsets, and leaves punctuation out.
TEST(TokenizeTest, ScriptsWithoutSpacesAreSplitIntoWords) {
  auto words = [](const std::string& text) {
    std::vector<std::string> out;
    for (const Token& t : Tokenize(text)) out.push_back(t.text);
    return out;
  };
  std::vector<std::string> ja = words("東京タワーは1958年に完成しました。");
  EXPECT_GE(ja.size(), 5u);
  EXPECT_NE(std::find(ja.begin(), ja.end(), "東京タワー"), ja.end());  // a name in its dictionary
  EXPECT_NE(std::find(ja.begin(), ja.end(), "完成"), ja.end());
  EXPECT_EQ(std::find(ja.begin(), ja.end(), "。"), ja.end());
  std::vector<std::string> zh = words("埃菲尔铁塔位于巴黎。");
  EXPECT_GE(zh.size(), 3u);
  EXPECT_NE(std::find(zh.begin(), zh.end(), "巴黎"), zh.end());
  std::vector<std::string> th = words("กรุงเทพมหานครเป็นเมืองหลวง");
  EXPECT_GE(th.size(), 2u);
  // Offsets point into the text; words in spaced scripts around them are as before.
  const std::string mixed = "Tokyo 東京タワー tower";
  auto tokens = Tokenize(mixed);
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens.front().text, "tokyo");
  EXPECT_EQ(tokens.back().text, "tower");
  EXPECT_EQ(mixed.substr(tokens[1].offset, tokens[1].text.size()), tokens[1].text);
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

namespace tala::text {
namespace {

// The script decides where it can; the fingerprints decide between languages that share one; a
// short or English text stays English.
TEST(LanguageTest, RowsAreReadInTheirLanguage) {
  EXPECT_EQ(DetectLanguage("東京タワーは1958年に完成しました。").code, "ja");
  EXPECT_TRUE(DetectLanguage("東京タワーは1958年に完成しました。").unspaced);
  EXPECT_EQ(DetectLanguage("长城全长约两万一千公里，横跨多个省份。").code, "zh");
  Language fi = DetectLanguage(
      "Helsingin tuomiokirkko on evankelis-luterilainen kirkko Helsingin keskustassa. Kirkon "
      "rakentaminen valmistui vuonna 1852.");
  EXPECT_EQ(fi.code, "fi");
  EXPECT_EQ(fi.stemmer, "finnish");
  EXPECT_TRUE(fi.supported());
  EXPECT_EQ(DetectLanguage("جامعة القاهرة هي جامعة حكومية مصرية. تم تأسيس جامعة القاهرة في عام "
                           "1908 وتقع في الجيزة.")
                .code,
            "ar");
  EXPECT_EQ(DetectLanguage("Der Kölner Dom ist eine römisch-katholische Kathedrale in Köln. Die "
                           "Bauarbeiten wurden im Jahr 1880 abgeschlossen.")
                .code,
            "de");
  EXPECT_EQ(DetectLanguage("Delhi").code, "en");
  EXPECT_EQ(DetectLanguage("The Oberoi family is part of a hotel company that has a head office "
                           "in what city? The Oberoi Group is a hotel company with its head "
                           "office in Delhi.")
                .code,
            "en");
  Language cs = DetectLanguage(
      "Praha je hlavní a zároveň největší město České republiky a 14. největší město Evropské "
      "unie. Leží mírně na sever od středu Čech na řece Vltavě.");
  EXPECT_EQ(cs.code, "cs");
  EXPECT_FALSE(cs.supported());  // libstemmer has no Czech
  // Hostile bytes (not UTF-8) are read as some language or none, never past the text's end.
  EXPECT_FALSE(DetectLanguage(std::string(700, '\x80')).code.empty());
  EXPECT_EQ(LanguageName("fi"), "Finnish");
  EXPECT_EQ(LanguageName("ja"), "Japanese");
}

TEST(WordSetsTest, JaccardIsTheSharedOverTheWhole) {
  EXPECT_DOUBLE_EQ(Jaccard({"a", "b", "c"}, {"b", "c", "d"}), 0.5);
  EXPECT_DOUBLE_EQ(Jaccard({"a"}, {"b"}), 0.0);
  EXPECT_DOUBLE_EQ(Jaccard({}, {"b"}), 0.0);
  EXPECT_DOUBLE_EQ(Jaccard({}, {}), 1.0);
  EXPECT_DOUBLE_EQ(Jaccard({"x", "y"}, {"x", "y"}), 1.0);
}

}  // namespace
}  // namespace tala::text
