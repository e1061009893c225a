// The offline response relevancy estimate (issue 17): answers to the question near 1, fluent
// answers about something else in the same context near 0, noncommittal answers 0.

#include "judges/offline/answer_relevance.h"

#include <gtest/gtest.h>

#include "core/text/stemmer.h"
#include "judges/offline/wordnet.h"

namespace tala::judges::offline {
namespace {

AnswerReading Read(const std::string& question, const std::string& response) {
  text::Stemmer stemmer;
  return ReadAnswer(TextProfile(question, stemmer), TextProfile(response, stemmer));
}

double Relevance(const std::string& question, const std::string& response) {
  return Read(question, response).lexical;
}

class AnswerRelevanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (WordNet::Get().empty()) GTEST_SKIP() << "wordnet-base is not installed (make deps)";
  }
};

TEST_F(AnswerRelevanceTest, AnAnswerOfTheAskedKindScoresHigh) {
  EXPECT_GE(Relevance("How much does a single ride cost?",
                      "A single ride costs 2.40 euros and is valid for 90 minutes."),
            0.7);
  EXPECT_GE(Relevance("When does the pool open on Sundays?", "It opens at 9am on Sundays."), 0.7);
  EXPECT_GE(Relevance("Where do I pick up my rental car?", "At desk B in the arrivals hall."), 0.4);
  EXPECT_GE(Relevance("Is the trail suitable for children?",
                      "Yes, the lower loop is easy enough for children."),
            0.5);
}

// The form of an answer against the form of its question: a yes or no answers a yes/no question
// and nothing else; one of the options answers a question that offers some.
TEST_F(AnswerRelevanceTest, AYesOrNoOrAnOptionIsReadAgainstWhatTheQuestionOffers) {
  auto form = [](const std::string& question, const std::string& response) {
    return Read(question, response).form;
  };
  EXPECT_EQ(form("Are both bands from Canada?", "Yes"), 1);
  EXPECT_EQ(form("Are both bands from Canada?", "No, only one of them."), 1);
  EXPECT_EQ(form("Are both bands from Canada?", "Toronto"), 0);
  EXPECT_EQ(form("Who was born first, Ada Lovelace or Charles Babbage?", "Charles Babbage"), 1);
  EXPECT_EQ(form("Who was born first, Ada Lovelace or Charles Babbage?", "Yes"), -1);
  // A fragment that names neither option does not answer; one that names an option with a word
  // of its own added still picks it.
  EXPECT_EQ(form("Who was born first, Ada Lovelace or Charles Babbage?", "Alan Turing"), -1);
  EXPECT_EQ(form("Who was born first, Ada Lovelace or Charles Babbage?", "1815"), -1);
  EXPECT_EQ(form("Which of the following championed the right to die: Christy Canyon or Jack "
                 "Kevorkian?",
                 "Jacob \"Jack\" Kevorkian"),
            1);
  // "Between A and B" offers options to a who or which question, not to a what question.
  EXPECT_EQ(form("Between two tennis players Kim Clijsters and Mary Pierce, who is older?",
                 "Mary Pierce"),
            1);
  EXPECT_EQ(form("What is the distance between Paris and Lyon?", "465 km"), 0);
  // A sentence picks an option when it names one, not the other, and says what they are
  // compared by; a sentence about one of them, or naming both, does not.
  const std::string first = "Who was born first, Ada Lovelace or Charles Babbage?";
  EXPECT_EQ(form(first, "Charles Babbage was born first, in 1791."), 1);
  EXPECT_EQ(form(first, "Ada Lovelace (born 1815) was a mathematician."), 0);
  EXPECT_EQ(form(first, "Ada Lovelace was born first, before Charles Babbage."), 0);
  EXPECT_EQ(
      form("Which is cheaper, the day pass or the single ticket?", "The single ticket is cheaper."),
      1);
  // A capitalised "Or" is part of a name, not an option.
  EXPECT_EQ(form("What man, also known as Imi Sde-Or, created the self-defense system?",
                 "Emrich \"Imi\" Lichtenfeld"),
            0);
  // An "or" before the question's wh-word is part of a name, not an option.
  EXPECT_EQ(form("The Royal Commission or Woodward Commission was initiated by which country?",
                 "Australia"),
            0);
  EXPECT_EQ(form("Which city hosts the festival?", "No"), -1);
  EXPECT_EQ(form("Which city hosts the festival?", "Edinburgh"), 0);
  // A sentence that opens with "no" and goes on is not a bare no.
  EXPECT_EQ(form("Which city hosts the festival?",
                 "No city has hosted it twice since the organisers moved it every year."),
            0);
}

// A name or title of any length is an answer fragment; a clause is not. "What was the
// population" asks for a quantity as "how many" does, "which year" for a year.
TEST_F(AnswerRelevanceTest, NamesAreFragmentsAndMeasuresAskForQuantities) {
  EXPECT_TRUE(
      Read("Which actors starred in the film?", "Anthony Hopkins and Jessica Lange").fragment);
  EXPECT_TRUE(
      Read("Which institute did she found?", "Institute of Muslim Minority Affairs").fragment);
  EXPECT_FALSE(
      Read("Which actors starred in the film?", "Anthony Hopkins starred in it with Jessica Lange")
          .fragment);
  EXPECT_FALSE(
      Read("Which actors starred in the film?", "two actors from the stage show").fragment);
  EXPECT_TRUE(Read("What was the population of the city in 2011?", "6,960").typed);
  EXPECT_FALSE(Read("What was the population of the city in 2011?", "Hong Kong").typed);
  EXPECT_TRUE(Read("What length is the track?", "6.2 km").typed);
  // "Which year" asks for a year: a number with a measure bound to it is a duration or an amount.
  EXPECT_TRUE(Read("The plaintiff was born in which year?", "1948").typed);
  EXPECT_TRUE(Read("In what year did the show first air?", "September 2006").typed);
  EXPECT_FALSE(Read("The plaintiff was born in which year?", "275 years").typed);
  EXPECT_TRUE(Read("How long did the empire last?", "275 years").typed);
  // A question that ends "... of what?" asks for what the noun before "of" names.
  const std::string town = "The bridge carried the road into a town with a population of what?";
  EXPECT_TRUE(Read(town, "2,523").typed);
  EXPECT_FALSE(Read(town, "Albuquerque, New Mexico").typed);
}

// The kind of answer is read from the question's own wh-phrase, which closes the question when an
// earlier wh-word is a relative ("..., who received a star in what year?"); a question that opens
// with its wh-word keeps it.
TEST_F(AnswerRelevanceTest, TheQuestionWordIsTheOneThatAsks) {
  text::Stemmer stemmer;
  auto asked = [&](const std::string& question) {
    return AskedFor(TextProfile(question, stemmer));
  };
  const std::string relative =
      "The 1988 comedy film starred a four-time Academy Award nominee, who received a star on "
      "the Walk of Fame in what year?";
  EXPECT_EQ(asked(relative), "what year");
  EXPECT_TRUE(Read(relative, "2006").typed);         // a year answers it
  EXPECT_FALSE(Read(relative, "John Candy").typed);  // a name does not
  EXPECT_GT(Read(relative, "He received the star in 2006.").coverage,
            Read(relative, "The library holds 400,000 books.").coverage);
  const std::string opening = "Who directed the film in which John Cusack starred?";
  EXPECT_EQ(asked(opening), "who directed the film");
  EXPECT_TRUE(Read(opening, "Rob Reiner").typed);
}

// "What band...?", "which company...?" name a kind of thing: a bare number does not answer them.
TEST_F(AnswerRelevanceTest, ABareNumberDoesNotNameAThing) {
  const std::string band = "The song is the fifth single from what band's fifth album?";
  EXPECT_TRUE(Read(band, "0.9 s.").typed_question);
  EXPECT_FALSE(Read(band, "0.9 s.").typed);
  EXPECT_FALSE(Read(band, "Gorillaz").typed_question);  // a name: no mismatch
  EXPECT_FALSE(Read("Which of the following was founded first?", "1957").typed_question);
}

// "Which senator...?" asks for a person and "in what city...?" for a place, by WordNet's first
// sense of the noun: a short answer naming another kind reads as a mismatch, as a number does.
TEST_F(AnswerRelevanceTest, ANameOfAnotherKindDoesNotAnswerTheQuestionsNoun) {
  auto mismatch = [](const std::string& question, const std::string& response) {
    AnswerReading a = Read(question, response);
    return a.typed_question && !a.typed;
  };
  const std::string senator = "Which senator from Oregon proposed the water bill in 2019?";
  EXPECT_TRUE(mismatch(senator, "Marion County"));  // a place
  EXPECT_TRUE(mismatch(senator, "The stadium"));    // a thing
  EXPECT_TRUE(mismatch(senator, "Portugal"));       // a place by name, as the whole answer
  EXPECT_FALSE(mismatch(senator, "Ron Wyden"));
  EXPECT_FALSE(mismatch(senator, "Jack London"));  // a surname may be a place's name
  EXPECT_FALSE(mismatch("Which former senator chaired the committee?", "Mark Hatfield"));
  const std::string city = "In what city was the treaty signed?";
  EXPECT_TRUE(mismatch(city, "The ambassador"));  // a person
  EXPECT_FALSE(mismatch(city, "Lincoln"));        // a city named after a person
  EXPECT_FALSE(mismatch(city, "Lisbon"));
  // The noun past a year and a list of modifiers.
  EXPECT_TRUE(mismatch("What American stage, film, and television actor played Samson?", "Canada"));
  EXPECT_TRUE(mismatch("Which 1962 Oregon senator chaired the committee?", "Marion County"));
  // "What band released...?": a group is asked, which this reading leaves to the other signals.
  EXPECT_FALSE(mismatch("What band released the album?", "Marion County"));
}

// A name answers "who" or "where" only when it can be of that kind: a place (WordNet's first
// sense) or a month is not a person, a person is not a place.
TEST_F(AnswerRelevanceTest, APlaceDoesNotAnswerWhoNorAPersonWhere) {
  auto typed = [](const std::string& question, const std::string& response) {
    return Read(question, response).typed;
  };
  EXPECT_FALSE(typed("Who wrote The Long Harbour?", "The Long Harbour is set in London."));
  EXPECT_FALSE(typed("Who wrote The Long Harbour?", "The Long Harbour came out in March."));
  EXPECT_TRUE(typed("Who wrote The Long Harbour?", "The Long Harbour was written by Mara Olsen."));
  EXPECT_FALSE(typed("Where did the novelist live?", "The novelist lived with Shakespeare."));
  EXPECT_TRUE(typed("Where did the novelist live?", "The novelist lived in London."));
}

// The sentence that fills the question's gap restates the words next to it; a sentence of the
// same page that restates the question's premise does not, however many of its words it shares.
TEST_F(AnswerRelevanceTest, TheSlotIsTheQuestionsWordsNextToItsGap) {
  auto slot = [](const std::string& question, const std::string& response) {
    return Read(question, response).slot;
  };
  const std::string q = "The bakery chain founded by Mara Olsen has its head office in what city?";
  const double fills = slot(q, "Brodhus keeps its head office in Aarhus.");
  const double premise = slot(q, "Mara Olsen founded the bakery chain Brodhus in 1998.");
  EXPECT_GT(fills, 0.5);
  EXPECT_LT(premise, fills);
  EXPECT_EQ(slot(q, "The weather was mild."), 0.0);
  // The nearer a stated word stands to the gap, the more it counts.
  EXPECT_GT(slot(q, "It has an office downtown."), slot(q, "The chain sells bread."));
  // A yes/no question's words count from its opening verb.
  EXPECT_GT(slot("Do children pay fares?", "Children under 12 ride free."), 0.3);
}

TEST_F(AnswerRelevanceTest, ASentenceThatDefinesTheQuestionsOwnSubjectIsMarked) {
  auto defines = [](const std::string& question, const std::string& response) {
    return Read(question, response).defines_subject;
  };
  const std::string q = "What does the Tollund Brewery have to limit to meet Danish law?";
  EXPECT_TRUE(defines(q, "Tollund is a brewery in Aarhus, founded in 1911."));
  EXPECT_TRUE(defines(q, "The Tollund Brewery (opened 1911) was one of the first in Jutland."));
  // A name that opens with a year, and one written with curly quotes around a nickname.
  EXPECT_TRUE(defines("Where was the 2013 Aarhus Harbour Race held?",
                      "The 2013 Aarhus Harbour Race was a sailing regatta for keelboats."));
  EXPECT_TRUE(defines("Which party did Anders \"Andy\" Holm join?",
                      "Anders \u201cAndy\u201d Holm (born 1961) is a Danish politician."));
  // The sentence that answers is about something else, or does not say what the subject is.
  EXPECT_FALSE(defines(q, "The Purity Law limits beer to water, barley and hops."));
  EXPECT_FALSE(defines(q, "Tollund brews under the Purity Law."));
  EXPECT_FALSE(defines(q, "He was the brewery's first master."));
  // Asked what or who the subject is, its definition is the answer.
  EXPECT_FALSE(defines("What is the Tollund Brewery?", "Tollund is a brewery in Aarhus."));
  EXPECT_FALSE(defines("Who was Anders Holm?", "Anders Holm was a Danish politician."));
  // A short answer defines nothing.
  EXPECT_FALSE(defines(q, "Tollund Brewery"));
}

TEST_F(AnswerRelevanceTest, AnAnswerAboutSomethingElseScoresLow) {
  EXPECT_LE(Relevance("When was the bridge built?", "It is lit up at night."), 0.3);
  EXPECT_LE(
      Relevance("How much does a single ride cost?", "Children under 12 travel free on all trams."),
      0.3);
  EXPECT_LE(Relevance("Who designed the library?", "The library holds 400,000 books."), 0.5);
}

TEST_F(AnswerRelevanceTest, OnTopicOutscoresOffTopicForTheSameQuestion) {
  const std::string q = "How many people can the conference room hold?";
  EXPECT_GT(Relevance(q, "The conference room holds 60 people."),
            Relevance(q, "Coffee is served at 10am."));
  const std::string why = "Why was the concert cancelled?";
  EXPECT_GT(Relevance(why, "It was cancelled because the singer fell ill."),
            Relevance(why, "Tickets will be refunded automatically."));
}

TEST_F(AnswerRelevanceTest, ScoresStayInTheUnitInterval) {
  for (const char* r : {"", "Yes.", "No", "1889", "The the the", "It it it it it it it"}) {
    double v = Relevance("When was the tower finished?", r);
    EXPECT_GE(v, 0.0) << r;
    EXPECT_LE(v, 1.0) << r;
  }
}

// A sentence is about the question when it states some of its focus, or opens with a pronoun
// right after one that does.
TEST_F(AnswerRelevanceTest, TheShareOfAContextsSentencesAboutTheQuestion) {
  text::Stemmer stemmer;
  const TextProfile question("Where does the Oberoi Group have its head office?", stemmer);
  EXPECT_DOUBLE_EQ(OnTopicShare(question,
                                "The Oberoi Group is a hotel company. It has its head office in "
                                "Delhi. Paris is the capital of France. It is on the Seine.",
                                stemmer),
                   0.5);
  EXPECT_DOUBLE_EQ(OnTopicShare(question, "Paris is the capital of France.", stemmer), 0.0);
  EXPECT_DOUBLE_EQ(OnTopicShare(question, "", stemmer), 0.0);
  // A sentence of a word or two ("Yes.") is not counted either way.
  size_t counted = 0;
  EXPECT_DOUBLE_EQ(OnTopicShare(question, "Yes. The Oberoi Group has its head office in Delhi.",
                                stemmer, &counted),
                   1.0);
  EXPECT_EQ(counted, 1u);
}

}  // namespace
}  // namespace tala::judges::offline
