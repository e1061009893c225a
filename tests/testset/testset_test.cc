// tala testset's engine (include/tala/testset.h) on a user log made from real questions
// (intent_log.h): intents found through typos, casing, word order and filler; a pick that
// covers distinct intents in the users' own words; references quoted verbatim from the right
// chunk; unanswerable questions flagged; byte-identical output per seed. Intents 0-39 are the
// half the thresholds were chosen on; the assertions are on intents 40-79.

#include "tala/testset.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "support/temp_dir.h"
#include "testset/documents.h"
#include "testset/group_tally.h"
#include "testset/intent_log.h"
#include "testset/meaning_merge.h"
#include "testset/question_groups.h"
#include "testset/realism.h"
#include "testset/reference_draft.h"

namespace tala {
namespace {

using testing::IntentLog;
using testing::TempDir;

struct Built {
  TempDir dir;
  IntentLog log;
  Testset set;
};

std::unique_ptr<Built> Build(size_t first, size_t last, int64_t size, uint64_t seed = 1) {
  auto b = std::make_unique<Built>();
  b->log = testing::MakeIntentLog(b->dir, first, last, 20231204);
  TestsetOptions o;
  o.logs = b->log.logs;
  o.docs = b->log.docs;
  o.size = size;
  o.seed = seed;
  auto set = BuildTestset(o);
  EXPECT_TRUE(set.has_value()) << set.error().ToString();
  if (set) b->set = std::move(*set);
  return b;
}

// The intent of each item, by its verbatim question.
std::vector<size_t> IntentsOf(const Built& b) {
  std::vector<size_t> out;
  for (const TestsetItem& item : b.set.items) {
    auto it = b.log.intent_of.find(item.user_input);
    out.push_back(it == b.log.intent_of.end() ? SIZE_MAX : it->second);
  }
  return out;
}

// Whether an item's contexts hold its intent's own section.
bool HasGoldChunk(const Built& b, const TestsetItem& item, size_t intent) {
  const testing::LoggedIntent& li = b.log.intents[intent];
  for (const std::string& id : item.reference_context_ids) {
    const size_t hash = id.rfind('#');
    if (id.substr(0, hash) != li.doc) continue;
    const size_t offset = std::stoul(id.substr(hash + 1));
    if (offset >= li.section_begin && offset < li.section_end) return true;
  }
  return false;
}

TEST(TestsetTest, FortyItemsFromALogOfFortyIntentsAreFortyIntentsInTheUsersOwnWords) {
  auto b = Build(40, 80, 40);
  ASSERT_EQ(b->set.items.size(), 40u);
  std::vector<size_t> intents = IntentsOf(*b);
  for (size_t k = 0; k < intents.size(); ++k) {
    // Byte for byte a logged question.
    EXPECT_NE(intents[k], SIZE_MAX) << b->set.items[k].user_input;
  }
  std::set<size_t> distinct(intents.begin(), intents.end());
  EXPECT_GE(distinct.size(), 38u);
  // No intent twice while there are fewer items than intents.
  EXPECT_EQ(distinct.size(), intents.size());
  EXPECT_EQ(b->set.report.questions, b->log.rows);
  // The log's shapes are counted: about a third of its questions carry a typo.
  int64_t logged = 0, items = 0;
  for (const auto& [style, n] : b->set.report.log_styles) logged += n;
  for (const auto& [style, n] : b->set.report.item_styles) items += n;
  EXPECT_EQ(logged, b->log.rows);
  EXPECT_EQ(items, 40);
  EXPECT_GT(b->set.report.log_styles["typo"], b->log.rows / 5);
  EXPECT_NEAR(b->set.report.intents, 40, 2) << "intents found in the log";
}

// Every question of an intent in one group, and no group holding two intents (on the
// development half, 0.3 to 0.45 gave the same 39 groups, one of them two intents that ask the
// same thing; 0.4 was chosen).
TEST(TestsetTest, EachIntentIsOneGroupAndNoGroupHoldsTwo) {
  TempDir dir;
  IntentLog log = testing::MakeIntentLog(dir, 40, 80, 20231204);
  const testing::LoggedQuestions logged = testing::ReadLoggedQuestions(log);
  const testing::GroupTally t =
      testing::TallyGroups(testset::GroupQuestions(logged.questions), logged.truth);
  for (size_t c = 0; c < t.intents_held.size(); ++c) {
    EXPECT_EQ(t.intents_held[c], 1u)
        << "group " << c << " holds " << t.intents_held[c] << " intents";
  }
  EXPECT_EQ(t.groups_of.size(), 40u);
  for (const auto& [intent, groups] : t.groups_of) {
    EXPECT_EQ(groups.size(), 1u) << log.intents[intent].question;
  }
}

TEST(TestsetTest, ReferencesQuoteTheirChunksAndUnanswerableQuestionsSaySo) {
  auto b = Build(40, 80, 40);
  std::vector<size_t> intents = IntentsOf(*b);
  int answerable = 0, with_gold = 0, unanswerable = 0;
  for (size_t k = 0; k < b->set.items.size(); ++k) {
    const TestsetItem& item = b->set.items[k];
    ASSERT_NE(intents[k], SIZE_MAX);
    if (!b->log.intents[intents[k]].answerable) {
      ++unanswerable;
      EXPECT_EQ(item.answerable, "no") << item.user_input << " (coverage " << item.coverage << ")";
      continue;
    }
    ++answerable;
    with_gold += HasGoldChunk(*b, item, intents[k]) ? 1 : 0;
    EXPECT_NE(item.answerable, "no") << item.user_input << " (coverage " << item.coverage << ")";
    EXPECT_FALSE(item.quotes.empty()) << item.user_input;
    for (const TestsetQuote& q : item.quotes) {
      bool found = false;
      for (size_t c = 0; c < item.reference_context_ids.size(); ++c) {
        found = found || (item.reference_context_ids[c] == q.context_id &&
                          item.reference_contexts[c].find(q.text) != std::string::npos);
      }
      EXPECT_TRUE(found) << "a quote not in its context: " << q.text;
    }
  }
  EXPECT_EQ(unanswerable, 2);  // intents 47 and 67
  EXPECT_GE(with_gold, answerable * 95 / 100) << with_gold << " of " << answerable;
}

// Issue 53 item 4: each item carries what its intent holds, for the review: its phrasings, the
// most asked first, whose counts add up to the intent's logged questions.
TEST(TestsetTest, EachItemCarriesItsIntentsPhrasingsWithTheirCounts) {
  auto b = Build(40, 80, 12);
  for (const TestsetItem& item : b->set.items) {
    if (item.source != "log") continue;
    ASSERT_FALSE(item.phrasings.empty()) << item.user_input;
    int64_t asked = 0;
    for (size_t k = 0; k < item.phrasings.size(); ++k) {
      asked += item.phrasings[k].asked;
      EXPECT_EQ(item.phrasings[k].log_ids.size(), static_cast<size_t>(item.phrasings[k].asked));
      if (k > 0) {
        EXPECT_GE(item.phrasings[k - 1].asked, item.phrasings[k].asked);
      }
    }
    EXPECT_LE(item.phrasings.size(), 10u);
    if (item.more_phrasings == 0) {
      EXPECT_EQ(asked, static_cast<int64_t>(item.log_ids.size())) << item.user_input;
    }
  }
  EXPECT_NE(TestsetItemJson(b->set.items.front()).find("\"phrasings\":[{\"text\":"),
            std::string::npos);
}

// Issue 53 item 6: the report opens with what the documents lack, every intent they cannot
// answer (picked or not) by its share of the traffic.
TEST(TestsetTest, TheReportOpensWithWhatTheDocumentsLack) {
  auto b = Build(40, 80, 10);
  std::set<size_t> lacking;
  for (const TestsetGap& gap : b->set.report.gaps) {
    auto it = b->log.intent_of.find(gap.question);
    ASSERT_NE(it, b->log.intent_of.end()) << gap.question;
    EXPECT_FALSE(b->log.intents[it->second].answerable) << gap.question;
    lacking.insert(it->second);
    EXPECT_GT(gap.questions, 0);
  }
  EXPECT_EQ(lacking, (std::set<size_t>{7, 27}));  // intents 47 and 67, the two unanswerable
  for (size_t i = 1; i < b->set.report.gaps.size(); ++i) {
    EXPECT_GE(b->set.report.gaps[i - 1].questions, b->set.report.gaps[i].questions);
  }
  const std::string text = TestsetReportText(b->set.report);
  EXPECT_EQ(text.rfind("what your documents lack: 2 intents, ", 0), 0u) << text;
  EXPECT_NE(TestsetReportJson(b->set.report).find("\"gaps\":{\"questions\":"), std::string::npos);
}

TEST(TestsetTest, TheSameSeedGivesTheSameFileAndAnotherSeedAnotherPick) {
  auto one = Build(40, 80, 20, 1);
  auto again = Build(40, 80, 20, 1);
  auto other = Build(40, 80, 20, 2);
  auto lines = [](const Built& b) {
    std::string text;
    for (const TestsetItem& item : b.set.items) text += TestsetItemJson(item) + "\n";
    return text;
  };
  EXPECT_EQ(lines(*one), lines(*again));
  EXPECT_NE(lines(*one), lines(*other));
  EXPECT_EQ(one->set.items.size(), 20u);
  // Each line is a dataset row with its metadata.
  simdjson::dom::parser p;
  simdjson::dom::element row = p.parse(TestsetItemJson(one->set.items[0]));
  EXPECT_EQ(std::string_view(row["metadata"]["source"]), "log");
  EXPECT_EQ(int64_t(row["metadata"]["seed"]), 1);
  EXPECT_GT(row["metadata"]["log_ids"].get_array().size(), 10u);
}

// The log's share of typos (and of vague and multi-part questions) is kept among the items, each
// still a logged question of its own intent, word for word.
TEST(TestsetTest, TheLogsQuestionShapesAreKept) {
  auto b = Build(0, 80, 40);
  const TestsetReport& r = b->set.report;
  auto share = [](const std::map<std::string, int64_t>& styles, const char* style) {
    int64_t total = 0;
    for (const auto& [s, n] : styles) total += n;
    auto it = styles.find(style);
    return it == styles.end() || total == 0 ? 0.0 : static_cast<double>(it->second) / total;
  };
  const double logged = share(r.log_styles, "typo"), items = share(r.item_styles, "typo");
  EXPECT_GT(logged, 0.1);
  EXPECT_NEAR(items, logged, 1.0 / 40 + 1e-9)
      << "typos: " << items << " of the items, " << logged << " of the log";
  std::vector<size_t> intents = IntentsOf(*b);
  EXPECT_EQ(std::set<size_t>(intents.begin(), intents.end()).size(), 40u);
  EXPECT_EQ(std::count(intents.begin(), intents.end(), SIZE_MAX), 0);
}

TEST(TestsetTest, MoreItemsThanIntentsGoByTrafficAndKeepDistinctPhrasings) {
  auto b = Build(40, 80, 60);
  ASSERT_EQ(b->set.items.size(), 60u);
  std::set<std::string> questions;
  for (const TestsetItem& item : b->set.items) questions.insert(item.user_input);
  EXPECT_EQ(questions.size(), 60u);
  std::set<size_t> distinct;
  for (size_t i : IntentsOf(*b)) distinct.insert(i);
  EXPECT_GE(distinct.size(), 38u);
}

TEST(TestsetTest, HeldOutQuestionsKeepTheirIntentsOut) {
  TempDir dir;
  IntentLog log = testing::MakeIntentLog(dir, 40, 80, 20231204);
  // Two intents a held-out set asks, in other words than the log's.
  std::ofstream(dir.path() + "/human.jsonl")
      << "{\"user_input\":\"" << log.intents[3].question << "\"}\n"
      << "{\"user_input\":\"" << log.intents[9].question << "\"}\n";
  TestsetOptions o;
  o.logs = log.logs;
  o.docs = log.docs;
  o.size = 40;
  o.heldout = dir.path() + "/human.jsonl";
  auto set = BuildTestset(o);
  ASSERT_TRUE(set.has_value()) << set.error().ToString();
  EXPECT_EQ(set->report.heldout_removed, 2);
  for (const TestsetItem& item : set->items) {
    auto it = log.intent_of.find(item.user_input);
    ASSERT_NE(it, log.intent_of.end());
    EXPECT_NE(it->second, 3u);
    EXPECT_NE(it->second, 9u);
  }
}

TEST(TestsetTest, DocumentsAloneGiveNoItemsAndListWhatIsUncovered) {
  TempDir dir;
  IntentLog log = testing::MakeIntentLog(dir, 40, 60, 7);
  TestsetOptions o;
  o.docs = log.docs;
  auto set = BuildTestset(o);
  ASSERT_TRUE(set.has_value()) << set.error().ToString();
  EXPECT_TRUE(set->items.empty());
  EXPECT_EQ(set->report.uncovered_documents.size(), set->report.documents);
  ASSERT_FALSE(set->report.notes.empty());
  EXPECT_NE(set->report.notes[0].find("no real questions"), std::string::npos);
  o.judge = "gpt-4o-mini";  // not a judge spec (openai:MODEL is; tests/testset/llm_testset_test.cc)
  EXPECT_EQ(BuildTestset(o).error().code(), ErrorCode::kInvalidArgument);
}

TEST(TestsetTest, LogsAloneGiveItemsWithoutReferences) {
  TempDir dir;
  IntentLog log = testing::MakeIntentLog(dir, 40, 60, 7);
  TestsetOptions o;
  o.logs = log.logs;
  o.size = 5;
  auto set = BuildTestset(o);
  ASSERT_TRUE(set.has_value());
  ASSERT_EQ(set->items.size(), 5u);
  EXPECT_EQ(set->items[0].answerable, "unknown");
  EXPECT_EQ(TestsetItemJson(set->items[0]).find("\"reference\""), std::string::npos);
}

TEST(TestsetDocumentsTest, MarkdownSplitsOnHeadingsAndNearDuplicatesAndEmptyChunksGo) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/d/sub");
  const std::string footer =
      "Copyright 2026 Harbour Ferries. All rights reserved. Terms of use apply to this page.";
  std::ofstream(dir.path() + "/d/a.md") << "# Ferry\n\nThe ferry sails every 20 minutes from "
                                           "Pier 3.\n\n## Fares\n\nA single ride costs 2.40 "
                                           "euros.\n\n## Footer\n\n"
                                        << footer << "\n";
  std::string tickets;
  for (int i = 0; i < 12; ++i)
    tickets += "Tickets are sold on board and at the pier, day and night. ";
  std::ofstream(dir.path() + "/d/sub/b.txt") << tickets << "\n\n" << footer << "\n";
  std::ofstream(dir.path() + "/d/ignored.pdfx") << "not read";
  auto docs = testset::ReadDocuments(dir.path() + "/d");
  ASSERT_TRUE(docs.has_value()) << docs.error().ToString();
  ASSERT_EQ(docs->sources, (std::vector<std::string>{"a.md", "sub/b.txt"}));
  std::vector<std::string> ids;
  for (const auto& c : docs->chunks) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"a.md#0", "a.md#56", "a.md#99", "sub/b.txt#0"}));
  EXPECT_EQ(docs->chunks[1].text, "## Fares\n\nA single ride costs 2.40 euros.");
  EXPECT_EQ(docs->dropped_duplicate, 1);  // the footer again, in b.txt
  EXPECT_EQ(docs->dropped_empty, 0);
  // A JSON Lines file of chunks, and its errors by line and field.
  std::ofstream(dir.path() + "/c.jsonl") << "{\"id\":\"k1\",\"text\":\"The ferry sails every "
                                            "20 minutes.\",\"source\":\"ferry.html\"}\n"
                                         << "{\"id\":\"k2\"}\n";
  auto bad = testset::ReadDocuments(dir.path() + "/c.jsonl");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().ToString().find("c.jsonl:2"), std::string::npos) << bad.error().ToString();
  EXPECT_NE(bad.error().ToString().find("text"), std::string::npos);
  EXPECT_EQ(testset::ReadDocuments(dir.path() + "/none").error().code(), ErrorCode::kNotFound);
}

TEST(TestsetGroupsTest, TyposCasingOrderAndFillerFallTogetherAndOtherQuestionsStayApart) {
  std::vector<std::string> log;
  for (int i = 0; i < 10; ++i) log.push_back("When does the ferry leave Pier 3?");
  log.push_back("when does the ferry leave pier 3");
  log.push_back("hey when does the fery leave pier 3 thanks");
  log.push_back("pier 3, when does the ferry leave?");
  for (int i = 0; i < 10; ++i) log.push_back("How much is a single ticket for the tram?");
  log.push_back("how much is a singel ticket for the tram please");
  for (int i = 0; i < 10; ++i) log.push_back("hey who founded the ferry company? thanks");
  testset::Grouping g = testset::GroupQuestions(log);
  ASSERT_EQ(g.intents.size(), 3u);
  // Japanese and Chinese questions, whose words are found by ICU's word breaker.
  std::vector<std::string> cjk = {"東京タワーはいつ完成しましたか？",
                                  "東京タワーはいつ完成しましたか",
                                  "東京タワー、いつ完成しましたか？",
                                  "大阪城は誰が建てましたか？",
                                  "大阪城は誰が建てましたか",
                                  "埃菲尔铁塔位于哪里？",
                                  "埃菲尔铁塔位于哪里"};
  testset::Grouping h = testset::GroupQuestions(cjk);
  EXPECT_EQ(h.intents.size(), 3u);
  EXPECT_EQ(g.intents[0].traffic, 13);
  EXPECT_EQ(g.intents[1].traffic, 11);
  EXPECT_EQ(g.intents[2].traffic, 10);
}

// Issue 53 item 1 (testset-findings T3, T4): a typo is never a name, whether the log or the
// lexicon knows the word ("taem" for "team" asked as often as the typo, "te" for "the", "wich"
// for "which"); and asks that share a template but not their verb, their entity or their
// attribute never join (add / delete / rename channels, the Basic / the Premium plan, the width
// of the stand / of the TV).
TEST(TestsetGroupsTest, TyposJoinTheirWordAndDifferentAsksStayApart) {
  std::vector<std::string> log;
  auto ask = [&](const std::string& q, int times) {
    for (int i = 0; i < times; ++i) log.push_back(q);
  };
  ask("Who is the head of the billing team?", 3);
  ask("who is te head of the billing taem? thx", 3);
  ask("hey wich person is the head of the billing team", 1);
  ask("How do I add channels to my favorites list?", 6);
  ask("how to add a channel to favorites list", 2);
  ask("How do I delete channels from my favorites list?", 5);
  ask("How do I rename my favorites list?", 4);
  ask("How much does the Basic plan cost per month?", 4);
  ask("How much does the Premium plan cost per month?", 3);
  ask("How much does the Plus plan cost per month?", 2);  // "plus": two edits from "plan"
  ask("What is the width of the stand?", 3);
  ask("What is the width of the TV?", 3);
  ask("What is the APR on my master card?", 3);
  ask("whats the apr on my mastercard", 2);  // words run together
  ask("How much does a gift card cost?", 3);
  const testset::Grouping g = testset::GroupQuestions(log);
  std::map<std::string, size_t> intent_of;
  for (size_t i = 0; i < g.intents.size(); ++i) {
    for (size_t p : g.intents[i].phrasings) {
      for (size_t q : g.phrasings[p].questions) intent_of[log[q]] = i;
    }
  }
  auto same = [&](const char* a, const char* b) { return intent_of.at(a) == intent_of.at(b); };
  EXPECT_TRUE(
      same("Who is the head of the billing team?", "who is te head of the billing taem? thx"));
  EXPECT_TRUE(same("Who is the head of the billing team?",
                   "hey wich person is the head of the billing team"));
  EXPECT_TRUE(same("How do I add channels to my favorites list?",
                   "how to add a channel to favorites list"));
  EXPECT_FALSE(same("How do I add channels to my favorites list?",
                    "How do I delete channels from my favorites list?"));
  EXPECT_FALSE(
      same("How do I add channels to my favorites list?", "How do I rename my favorites list?"));
  EXPECT_FALSE(same("How much does the Basic plan cost per month?",
                    "How much does the Premium plan cost per month?"));
  EXPECT_FALSE(same("How much does the Basic plan cost per month?",
                    "How much does the Plus plan cost per month?"));
  EXPECT_FALSE(same("How much does the Premium plan cost per month?",
                    "How much does the Plus plan cost per month?"));
  EXPECT_FALSE(same("What is the width of the stand?", "What is the width of the TV?"));
  EXPECT_TRUE(same("What is the APR on my master card?", "whats the apr on my mastercard"));
  EXPECT_FALSE(same("What is the APR on my master card?", "How much does a gift card cost?"));
  EXPECT_EQ(g.intents.size(), 11u);
  // A typo is no name: the meaning join does not hold the intents apart by it.
  EXPECT_TRUE(testset::NamesOf("who is te head of the billing taem?").empty());
  // An unknown word one edit from a word ("kasa", "casa") is a name when the log's wordings say
  // it twice or more, spelled the same way.
  EXPECT_EQ(testset::NamesOf("does it pair with Roku and kasa"),
            (std::vector<std::string>{"roku"}));
  const testset::WordRecurrence recurrence = {{"kasa", 2}, {"taem", 1}};
  EXPECT_EQ(testset::NamesOf("does it pair with Roku and kasa", &recurrence),
            (std::vector<std::string>{"kasa", "roku"}));
}

// A support log asked from a template: "how do i <verb> my <thing> <where>?", 20 verbs by 20
// things by 15 places, each asked three times, in a shuffled order. Every two questions that
// differ in one word are alike by their words, so joining any member to any member chained the
// whole log into one intent (18,000 questions, 1 intent); joined to their leaders, no intent
// grows past a few of them. Which of two questions differing in one of three words is another
// intent, the words cannot tell ("cancel my card online" and "cancel my ticket online" may
// join): the reviewer sees each item's log ids.
TEST(TestsetGroupsTest, ATemplatedLogIsNotChainedIntoOneIntent) {
  const std::vector<std::string> verbs = {"reset",  "change", "cancel",  "upgrade",  "renew",
                                          "update", "delete", "recover", "transfer", "pause",
                                          "resume", "verify", "link",    "unlink",   "export",
                                          "import", "share",  "print",   "download", "upload"};
  const std::vector<std::string> things = {
      "password", "account", "subscription", "card",  "ticket", "order",      "booking",
      "profile",  "address", "email",        "phone", "plan",   "membership", "invoice",
      "receipt",  "refund",  "voucher",      "pass",  "photo",  "document"};
  const std::vector<std::string> places = {"",
                                           "on the app",
                                           "online",
                                           "at the station",
                                           "from abroad",
                                           "for my kid",
                                           "after moving",
                                           "without a login",
                                           "on android",
                                           "on iphone",
                                           "before travel",
                                           "this week",
                                           "for free",
                                           "by phone",
                                           "in the shop"};
  std::vector<std::string> log;
  for (int copy = 0; copy < 3; ++copy) {
    for (const std::string& v : verbs) {
      for (const std::string& t : things) {
        for (const std::string& p : places) {
          log.push_back("how do i " + v + " my " + t + (p.empty() ? "" : " " + p) + "?");
        }
      }
    }
  }
  std::mt19937_64 rng(3);
  std::shuffle(log.begin(), log.end(), rng);
  testset::Grouping g = testset::GroupQuestions(log);
  // 6,000 distinct questions of 400 verb-and-thing intents asked in 15 places: at least 200
  // intents, and none holding more than 2% of the log.
  EXPECT_GE(g.intents.size(), 200u);
  EXPECT_LE(g.intents.front().traffic, static_cast<int64_t>(log.size() / 50));
}

}  // namespace
}  // namespace tala

namespace tala {
namespace {

// A results file as the log: rows of some intents failed (a low score and a diagnosis); the
// pick draws them first, up to the share, each in a failing row's own words.
TEST(TestsetFailuresTest, IntentsWithFailingRowsAreDrawnFirstInAFailingRowsWords) {
  TempDir dir;
  IntentLog log = testing::MakeIntentLog(dir, 40, 80, 9);
  std::ifstream in(log.logs);
  simdjson::dom::parser p;
  std::string results;
  std::set<std::string> failing_questions;
  int n = 0;
  for (std::string line; std::getline(in, line); ++n) {
    const std::string q(std::string_view(p.parse(line)["user_input"]));
    const size_t intent = log.intent_of.at(q);
    // Intents 0-4 fail on every third row.
    const bool failed = intent < 5 && n % 3 == 0;
    if (failed) failing_questions.insert(q);
    std::string escaped;
    for (char c : q) {
      if (c == '"' || c == '\\') escaped += '\\';
      escaped += c;
    }
    results += "{\"id\":\"r" + std::to_string(n) +
               "\",\"scores\":{\"faithfulness\":" + (failed ? "0.2" : "0.9") +
               "},\"diagnosis\":\"" + (failed ? "generator not grounded" : "healthy") +
               "\",\"inputs\":{\"user_input\":\"" + escaped + "\"}}\n";
  }
  std::ofstream(dir.path() + "/results.jsonl") << results;
  TestsetOptions o;
  o.logs = dir.path() + "/results.jsonl";
  o.docs = log.docs;
  o.size = 10;
  o.failed_share = 0.4;
  auto set = BuildTestset(o);
  ASSERT_TRUE(set.has_value()) << set.error().ToString();
  EXPECT_EQ(set->report.failed_intents, 5);
  EXPECT_EQ(set->report.items_from_failures, 4);  // 40% of 10
  int from_failures = 0;
  for (const TestsetItem& item : set->items) {
    if (item.failed == 0) continue;
    ++from_failures;
    EXPECT_TRUE(failing_questions.count(item.user_input)) << item.user_input;
    EXPECT_LT(log.intent_of.at(item.user_input), 5u);
  }
  EXPECT_EQ(from_failures, 4);
  // Without the quota, failures are drawn like any other intent.
  o.failed_share = 0;
  auto plain = BuildTestset(o);
  ASSERT_TRUE(plain.has_value());
  EXPECT_LT(plain->report.items_from_failures, 4);
}

}  // namespace
}  // namespace tala

namespace tala {
namespace {

// An HTML page's main text (no script, navigation or footer), headings kept; a PDF's text
// layer page by page.
TEST(TestsetDocumentsTest, HtmlMainTextAndPdfPagesBecomeChunks) {
  auto docs = testset::ReadDocuments(std::string(TALA_SOURCE_DIR) + "/tests/data/testset/docs");
  ASSERT_TRUE(docs.has_value()) << docs.error().ToString();
  EXPECT_EQ(docs->sources, (std::vector<std::string>{"fares.html", "timetable.pdf"}));
  std::vector<std::string> ids;
  std::string all;
  for (const auto& c : docs->chunks) {
    ids.push_back(c.id);
    all += c.text + "\n---\n";
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"fares.html#0", "fares.html#102", "timetable.pdf#p1",
                                           "timetable.pdf#p2"}))
      << all;
  EXPECT_NE(all.find("# Fares\n\nA single ride costs 2.40 euros and is valid for 90 minutes"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("## Passes\n\n- The monthly pass costs 58 euros.\n- Students"),
            std::string::npos)
      << all;
  for (const char* boilerplate : {"analytics", "Maps", "Copyright", "font-family"}) {
    EXPECT_EQ(all.find(boilerplate), std::string::npos) << boilerplate << "\n" << all;
  }
  EXPECT_NE(all.find("The harbour ferry sails every 20 minutes from Pier 3"), std::string::npos)
      << all;
  EXPECT_NE(all.find("Folded bicycles are always allowed."), std::string::npos) << all;
  EXPECT_EQ(docs->chunks[3].source, "timetable.pdf");
  // A file that only says it is a PDF is an error naming it.
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/d");
  std::ofstream(dir.path() + "/d/broken.pdf") << "%PDF-1.4 not really";
  auto broken = testset::ReadDocuments(dir.path() + "/d");
  ASSERT_FALSE(broken.has_value());
  EXPECT_NE(broken.error().ToString().find("broken.pdf"), std::string::npos)
      << broken.error().ToString();
}

}  // namespace
}  // namespace tala

namespace tala {
namespace {

// Real phrasings against real phrasings cannot be told apart; questions written in another
// style can.
TEST(TestsetRealismTest, AClassifierTellsOtherStylesApartButNotTheSameUsers) {
  TempDir dir;
  IntentLog log = testing::MakeIntentLog(dir, 40, 80, 13);
  std::vector<std::string> logged;
  std::ifstream in(log.logs);
  simdjson::dom::parser p;
  for (std::string line; std::getline(in, line);) {
    logged.emplace_back(std::string_view(p.parse(line)["user_input"]));
  }
  std::vector<std::string> first(logged.begin(), logged.begin() + 100);
  std::vector<std::string> second(logged.begin() + 100, logged.begin() + 200);
  auto same = testset::RealismAuroc(first, second, 1);
  ASSERT_TRUE(same.has_value());
  EXPECT_LT(*same, 0.7);
  std::vector<std::string> formal;
  for (const auto& li : log.intents) {
    formal.push_back(
        "Could you please provide a detailed explanation regarding the following "
        "matter: " +
        li.question);
  }
  auto other = testset::RealismAuroc(first, formal, 1);
  ASSERT_TRUE(other.has_value());
  EXPECT_GT(*other, 0.9);
  EXPECT_FALSE(testset::RealismAuroc(first, {"a", "b"}, 1).has_value());
}

// Chunks of the given ids and texts.
std::vector<testset::Chunk> ChunksOf(
    const std::vector<std::pair<std::string, std::string>>& texts) {
  std::vector<testset::Chunk> chunks(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    chunks[i].id = texts[i].first;
    chunks[i].text = texts[i].second;
  }
  return chunks;
}

// Issue 53 item 2: the reference holds the sentence that answers, by the relevance reading, not
// only the one that shares most of the question's words (which restates its premise); and
// "yes" needs a sentence that answers as well as the question's words. The scorer stands in for
// the offline judge's reading, which bench/testset_sources.py measures on six sources.
TEST(ReferenceDraftTest, TheSentenceThatAnswersIsQuotedAndDecidesYes) {
  const std::vector<testset::Chunk> chunks = ChunksOf(
      {{"tower.md#0",
        "The Eiffel Tower is a wrought-iron tower in Paris named after Gustave Eiffel, whose "
        "company designed and built the tower. Construction finished in 1889."}});
  testset::ChunkIndex index(chunks);
  const std::vector<std::string> terms =
      testset::TermsOf("In what year was the Eiffel Tower in Paris built?");
  auto by_words = testset::DraftReference(chunks, index, terms, index.Search(terms, 3));
  ASSERT_TRUE(by_words.has_value());
  EXPECT_EQ(by_words->reference.find("1889"), std::string::npos) << "words alone miss it";
  auto reader = [](const std::vector<std::string>& sentences) -> Result<std::vector<double>> {
    std::vector<double> out;
    for (const std::string& s : sentences) out.push_back(s.find("1889") != s.npos ? 0.9 : 0.2);
    return out;
  };
  auto read = testset::DraftReference(chunks, index, terms, index.Search(terms, 3), reader);
  ASSERT_TRUE(read.has_value());
  EXPECT_NE(read->reference.find("Construction finished in 1889."), std::string::npos)
      << read->reference;
  EXPECT_EQ(read->answerable, "yes");
  auto nothing_answers =
      [](const std::vector<std::string>& sentences) -> Result<std::vector<double>> {
    return std::vector<double>(sentences.size(), 0.2);
  };
  auto partly =
      testset::DraftReference(chunks, index, terms, index.Search(terms, 3), nothing_answers);
  ASSERT_TRUE(partly.has_value());
  EXPECT_EQ(partly->answerable, "partly");
}

// newcomer-round4 T1, as the report ran it (landmarks.md: the Eiffel Tower's completion and
// height, the Great Wall's length): a question the documents do not answer is never "yes"
// because a sentence of another subject reads like an answer ("It is 330 metres tall." for
// Mount Everest, the Great Wall for the Berlin Wall).
TEST(TestsetTest, T1_ASentenceAboutAnotherSubjectIsNoYes) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/kb");
  std::ofstream(dir.path() + "/kb/landmarks.md")
      << "## Eiffel Tower\nThe Eiffel Tower was completed in 1889 for the World's Fair. It is 330 "
         "metres tall.\n\n## Great Wall\nThe Great Wall of China is about 21,196 km long in "
         "total.\n";
  std::ofstream(dir.path() + "/log.jsonl")
      << "{\"id\":\"r0\",\"user_input\":\"How tall is Mount Everest?\"}\n"
      << "{\"id\":\"r1\",\"user_input\":\"When did the Berlin Wall fall?\"}\n"
      << "{\"id\":\"r2\",\"user_input\":\"When was the Eiffel Tower completed?\"}\n";
  TestsetOptions o;
  o.logs = dir.path() + "/log.jsonl";
  o.docs = dir.path() + "/kb";
  o.size = 3;
  auto set = BuildTestset(o);
  ASSERT_TRUE(set.has_value()) << set.error().ToString();
  ASSERT_EQ(set->items.size(), 3u);
  for (const TestsetItem& item : set->items) {
    if (item.user_input == "When was the Eiffel Tower completed?") {
      EXPECT_EQ(item.answerable, "yes") << item.reference;
    } else {
      EXPECT_NE(item.answerable, "yes") << item.user_input << ": " << item.reference;
    }
  }
}

// newcomer-round4 T1: a Markdown heading is the section's context, never quoted, never glued to
// the sentence after it.
TEST(ReferenceDraftTest, T1_AHeadingIsNeverPartOfAQuote) {
  const std::vector<testset::Chunk> chunks = ChunksOf(
      {{"landmarks.md#0",
        "## Eiffel Tower\nThe Eiffel Tower was completed in 1889 for the World's Fair. It is 330 "
        "metres tall."},
       {"landmarks.md#1",
        "## Great Wall\nThe Great Wall of China is about 21,196 km long in total."}});
  testset::ChunkIndex index(chunks);
  const std::vector<std::string> terms = testset::TermsOf("When was the Eiffel Tower completed?");
  auto drafted = testset::DraftReference(chunks, index, terms, index.Search(terms, 3));
  ASSERT_TRUE(drafted.has_value());
  const testset::ReferenceDraft& draft = *drafted;
  ASSERT_FALSE(draft.quotes.empty());
  for (const testset::Quote& q : draft.quotes) {
    EXPECT_EQ(q.text.find('#'), std::string::npos) << q.text;
    EXPECT_NE(chunks[q.chunk].text.find(q.text), std::string::npos) << "verbatim";
  }
  EXPECT_EQ(draft.quotes.front().text.rfind("The Eiffel Tower was completed in 1889", 0), 0u)
      << draft.quotes.front().text;
}

}  // namespace
}  // namespace tala
