// tala testset with an LLM judge, against the mock judge on 127.0.0.1: questions written for the
// documents (single- and multi-hop, each quoting its passages), references drafted with quotes
// checked character for character, a misquoting judge caught, the calls per item counted, and
// the cache making a second run (or a run after kill -9) ask nothing again.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "support/mock_judge_server.h"
#include "support/temp_dir.h"
#include "tala/testset.h"
#include "testset/intent_log.h"
#include "testset/llm_items.h"
#include "testset/llm_plan.h"

namespace tala {
namespace {

using testing::Fault;
using testing::IntentLog;
using testing::MockJudgeServer;
using testing::TempDir;

struct LlmTestset : ::testing::Test {
  MockJudgeServer judge;
  TempDir dir;
  IntentLog log;
  void SetUp() override {
    ASSERT_TRUE(judge.Start());
    log = testing::MakeIntentLog(dir, 40, 60, 20231204);
  }
  TestsetOptions Options(int64_t size, const std::string& cache = "off") {
    TestsetOptions o;
    o.docs = log.docs;
    o.size = size;
    o.judge = "openai:mock-model";
    o.llm.base_url = judge.base_url();
    o.llm.api_key = "test";
    o.llm.cache = cache;
    // Fewer connections than the mock's threads: a kept-alive connection holds one.
    o.llm.max_in_flight = 8;
    return o;
  }
};

// Every quote is a verbatim span of one of the item's own contexts.
void ExpectQuotesInContexts(const TestsetItem& item) {
  for (const TestsetQuote& q : item.quotes) {
    bool found = false;
    for (size_t c = 0; c < item.reference_context_ids.size(); ++c) {
      found = found || (item.reference_context_ids[c] == q.context_id &&
                        item.reference_contexts[c].find(q.text) != std::string::npos);
    }
    EXPECT_TRUE(found) << item.user_input << ": a quote not in its context: " << q.text;
  }
}

TEST_F(LlmTestset, DocumentsAloneGiveSingleAndMultiHopItemsEachQuotingItsPassages) {
  auto set = BuildTestset(Options(24));
  ASSERT_TRUE(set.has_value()) << set.error().ToString();
  const TestsetReport& r = set->report;
  EXPECT_EQ(r.synthetic_planned, 24);
  EXPECT_EQ(r.synthetic_items, static_cast<int64_t>(set->items.size()));
  EXPECT_GE(set->items.size(), 20u) << r.synthetic_duplicates << " duplicates";
  int single = 0, multi = 0;
  std::set<std::string> docs, styles;
  for (const TestsetItem& item : set->items) {
    EXPECT_EQ(item.source, "synthetic");
    EXPECT_FALSE(item.persona.empty());
    EXPECT_EQ(item.prompt_version, "testset_question@1+testset_reference@1");
    EXPECT_FALSE(item.quotes.empty()) << item.user_input;
    ExpectQuotesInContexts(item);
    std::set<std::string> quoted;
    for (const TestsetQuote& q : item.quotes) quoted.insert(q.context_id);
    if (item.hops == 2) {
      ++multi;
      EXPECT_GE(quoted.size(), 2u)
          << "a multi-hop item quotes each of its chunks: " << item.user_input;
    } else {
      ++single;
    }
    docs.insert(item.doc);
    styles.insert(item.style);
  }
  EXPECT_GT(single, 0);
  EXPECT_GT(multi, 0);
  EXPECT_EQ(r.multi_hop_items, multi);
  EXPECT_EQ(r.item_hops.at(2), multi);
  int64_t personas = 0;
  for (const auto& [persona, n] : r.item_personas) personas += n;
  EXPECT_EQ(personas, static_cast<int64_t>(set->items.size()));
  EXPECT_GE(r.item_personas.size(), 3u);
  // Each document gets its share: 24 items over 5 documents touch every one.
  EXPECT_EQ(docs.size(), static_cast<size_t>(r.documents));
  EXPECT_GE(styles.size(), 3u);  // plain, typo, vague, multi-part by the default shares
  // The calls: one for the question and one for the reference, per item.
  EXPECT_TRUE(r.llm.used);
  EXPECT_FALSE(r.llm.estimated);
  EXPECT_EQ(r.llm.calls, 48);
  EXPECT_EQ(r.llm.repairs, 0);
  EXPECT_EQ(judge.stats().chat_requests, 48);
  EXPECT_LE(r.llm.per_kept_item, 3.0);
  EXPECT_GT(r.llm.per_kept_item, 1.9);
  EXPECT_NE(TestsetReportText(r).find("calls per item kept"), std::string::npos);
}

TEST_F(LlmTestset, AQuoteThatIsNotVerbatimIsRejected) {
  judge.SetStandingFault(Fault::kMisquote);
  // Synthetic questions whose quotes stay reworded after one rewrite are dropped.
  auto written = BuildTestset(Options(4));
  ASSERT_TRUE(written.has_value()) << written.error().ToString();
  EXPECT_EQ(written->report.synthetic_planned, 4);
  EXPECT_EQ(written->report.synthetic_dropped, 4);
  EXPECT_TRUE(written->items.empty());
  ASSERT_FALSE(written->report.dropped_reasons.empty());
  EXPECT_NE(written->report.dropped_reasons[0].find("character for character"), std::string::npos)
      << written->report.dropped_reasons[0];
  EXPECT_EQ(judge.stats().chat_requests, 8);  // each question asked twice, no reference asked
  // Logged questions keep their items, flagged, with no reworded quote in them.
  TestsetOptions o = Options(6);
  o.logs = log.logs;
  auto set = BuildTestset(o);
  ASSERT_TRUE(set.has_value()) << set.error().ToString();
  const TestsetReport& r = set->report;
  ASSERT_FALSE(set->items.empty());
  int64_t quoted = 0;  // drafts that quoted (the judge found the rest unanswerable)
  for (const TestsetItem& item : set->items) {
    EXPECT_EQ(item.source, "log");
    if (item.answerable != "no") {
      ++quoted;
      EXPECT_NE(item.flag, "") << item.user_input;
    }
    for (const TestsetQuote& q : item.quotes) {
      EXPECT_EQ(q.text.rfind("In short: ", 0), std::string::npos) << q.text;
    }
    ExpectQuotesInContexts(item);
  }
  EXPECT_GT(quoted, 0);
  EXPECT_EQ(r.flagged_items, quoted);
  // Every misquoting draft was redrafted once, and no more.
  EXPECT_EQ(r.llm.repairs, quoted);
  // The calls counted include the embeddings that read the intents and chunks.
  const int64_t embeddings =
      r.llm.by_prompt.count("embeddings") ? r.llm.by_prompt.at("embeddings") : 0;
  EXPECT_EQ(judge.stats().embedding_requests, embeddings);
  EXPECT_EQ(judge.stats().chat_requests, 8 + r.llm.calls - embeddings + quoted);
}

TEST_F(LlmTestset, TheJudgesEmbeddingsModelReadsTheIntentsAndChunks) {
  TestsetOptions o = Options(10);
  o.logs = log.logs;
  auto set = BuildTestset(o);
  ASSERT_TRUE(set.has_value()) << set.error().ToString();
  const TestsetReport& r = set->report;
  ASSERT_TRUE(r.intents_joined_by_meaning.has_value());
  ASSERT_TRUE(r.llm.by_prompt.count("embeddings"));
  // The picked intents' wordings and their candidate chunks, in calls of up to 64 texts.
  EXPECT_GE(r.llm.by_prompt.at("embeddings"), 1);
  EXPECT_EQ(judge.stats().embedding_requests, r.llm.by_prompt.at("embeddings"));
  EXPECT_LE(r.llm.per_kept_item, 3.0);
  for (const TestsetItem& item : set->items) ExpectQuotesInContexts(item);
  // --embeddings offline: the sentence encoder reads them, and no embeddings request is sent.
  const int64_t before = judge.stats().embedding_requests;
  o.llm.embeddings = "offline";
  auto offline = BuildTestset(o);
  ASSERT_TRUE(offline.has_value()) << offline.error().ToString();
  EXPECT_EQ(judge.stats().embedding_requests, before);
  EXPECT_EQ(offline->report.llm.by_prompt.count("embeddings"), 0u);
  // A broken embeddings endpoint (every vector zeros): the offline encoder reads them instead,
  // and the report says so; the items are still drafted by the judge.
  judge.SetStandingFault(Fault::kZeroVectors);
  o.llm.embeddings = "auto";
  auto broken = BuildTestset(o);
  ASSERT_TRUE(broken.has_value()) << broken.error().ToString();
  EXPECT_EQ(broken->items.size(), set->items.size());
  EXPECT_TRUE(broken->report.intents_joined_by_meaning.has_value());
  bool said = false;
  for (const std::string& note : broken->report.notes) {
    said = said || note.find("the embeddings model failed") != std::string::npos;
  }
  EXPECT_TRUE(said) << TestsetReportText(broken->report);
  judge.SetStandingFault(Fault::kNone);
  // A dry run estimates the embeddings calls too, and sends nothing.
  o.dry_run = true;
  const int64_t requests = judge.stats().requests;
  auto planned = BuildTestset(o);
  ASSERT_TRUE(planned.has_value()) << planned.error().ToString();
  EXPECT_EQ(judge.stats().requests, requests);
  ASSERT_TRUE(planned->report.llm.by_prompt.count("embeddings"));
  EXPECT_GE(planned->report.llm.by_prompt.at("embeddings"), 1);
  // It says whether a provider's prompt cache could serve the calls' shared start (issue 56).
  bool cache_said = false;
  for (const std::string& note : planned->report.notes) {
    cache_said = cache_said || note.rfind("provider prompt cache: ", 0) == 0;
  }
  EXPECT_TRUE(cache_said) << TestsetReportText(planned->report);
}

TEST_F(LlmTestset, LoggedQuestionsStayVerbatimAndUncoveredDocumentsGetWrittenItems) {
  // A document no logged question asks about.
  {
    std::ofstream doc(log.docs + "/lost-property.md");
    doc << "# Lost property\n\nItems left on a Larkspur tram are kept at the Quayside depot for "
           "sixty days. Umbrellas are donated to the harbour shelter after thirty days.\n";
  }
  TestsetOptions o = Options(20);
  o.logs = log.logs;
  auto set = BuildTestset(o);
  ASSERT_TRUE(set.has_value()) << set.error().ToString();
  const TestsetReport& r = set->report;
  EXPECT_EQ(r.log_items + r.synthetic_items, static_cast<int64_t>(set->items.size()));
  EXPECT_GE(r.log_items, 16);
  for (const TestsetItem& item : set->items) {
    ExpectQuotesInContexts(item);
    if (item.source != "log") continue;
    EXPECT_TRUE(log.intent_of.count(item.user_input))
        << "not a logged question: " << item.user_input;
    EXPECT_EQ(item.prompt_version, "testset_reference@1");
  }
  // The written items are about documents no logged question touches.
  ASSERT_GE(r.synthetic_items, 1);
  for (const TestsetItem& item : set->items) {
    if (item.source == "synthetic") {
      EXPECT_EQ(item.doc, "lost-property.md");
    }
  }
  for (const TestsetItem& item : set->items) {
    if (item.source != "synthetic") continue;
    for (const TestsetItem& other : set->items) {
      if (other.source == "log") {
        EXPECT_NE(other.doc, item.doc) << item.user_input;
      }
    }
  }
}

TEST_F(LlmTestset, TheSameSeedGivesTheSameFileAndTheCacheAsksNothingTwice) {
  const std::string cache = dir.path() + "/cache.sqlite";
  auto lines = [](const Testset& set) {
    std::string text;
    for (const TestsetItem& item : set.items) text += TestsetItemJson(item) + "\n";
    return text;
  };
  auto first = BuildTestset(Options(10, cache));
  ASSERT_TRUE(first.has_value()) << first.error().ToString();
  const int64_t asked = judge.stats().chat_requests;
  EXPECT_EQ(asked, first->report.llm.calls);
  // Again (as after a kill -9: every reply stored is reused): nothing is asked twice.
  auto again = BuildTestset(Options(10, cache));
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(judge.stats().chat_requests, asked);
  EXPECT_EQ(again->report.llm.cache_hits, asked);
  EXPECT_EQ(again->report.llm.calls, 0);
  EXPECT_EQ(lines(*first), lines(*again));
  // Without the cache too, the same seed gives the same file.
  auto uncached = BuildTestset(Options(10));
  ASSERT_TRUE(uncached.has_value());
  EXPECT_EQ(lines(*first), lines(*uncached));
  TestsetOptions other = Options(10);
  other.seed = 2;
  auto reseeded = BuildTestset(other);
  ASSERT_TRUE(reseeded.has_value());
  EXPECT_NE(lines(*first), lines(*reseeded));
}

TEST_F(LlmTestset, DryRunEstimatesAndCallsNothing) {
  TestsetOptions o = Options(12);
  o.logs = log.logs;
  o.dry_run = true;
  auto set = BuildTestset(o);
  ASSERT_TRUE(set.has_value()) << set.error().ToString();
  EXPECT_TRUE(set->items.empty());
  EXPECT_TRUE(set->report.llm.estimated);
  EXPECT_GE(set->report.llm.calls, 12);
  EXPECT_GT(set->report.llm.prompt_tokens, 0);
  EXPECT_EQ(judge.stats().requests, 0);
  EXPECT_NE(TestsetReportText(set->report).find("estimated: "), std::string::npos);
}

TEST_F(LlmTestset, AJudgeThatRefusesTheKeyStopsTheRunWithItsError) {
  judge.SetStandingFault(Fault::kUnauthorized);
  auto set = BuildTestset(Options(4));
  ASSERT_FALSE(set.has_value());
  EXPECT_NE(set.error().message().find("401"), std::string::npos) << set.error().ToString();
  TestsetOptions bogus = Options(4);
  bogus.judge = "gpt-4o";
  EXPECT_EQ(BuildTestset(bogus).error().code(), ErrorCode::kInvalidArgument);
}

TEST(TestsetQuotesTest, OnlyAVerbatimSpanOfANamedPassageIsAQuote) {
  std::vector<testset::Chunk> chunks = {{"a#0", "The ferry leaves at 7:15 from pier 3.", "a"},
                                        {"b#0", "Tickets cost 4 euros.", "b"}};
  std::vector<testset::CheckedQuote> checked;
  EXPECT_EQ(testset::CheckQuotes({{"a#0", "leaves at 7:15"}}, chunks, {0, 1}, &checked), "");
  ASSERT_EQ(checked.size(), 1u);
  EXPECT_EQ(checked[0].chunk, 0u);
  // A changed figure, other casing, a passage not offered, an empty span: all refused.
  EXPECT_NE(testset::CheckQuotes({{"a#0", "leaves at 7:30"}}, chunks, {0, 1}, nullptr), "");
  EXPECT_NE(testset::CheckQuotes({{"a#0", "the ferry leaves"}}, chunks, {0, 1}, nullptr), "");
  EXPECT_NE(testset::CheckQuotes({{"b#0", "Tickets cost 4 euros."}}, chunks, {0}, nullptr), "");
  EXPECT_NE(testset::CheckQuotes({{"a#0", " "}}, chunks, {0}, nullptr), "");
}

TEST(TestsetTypoTest, ATypoIsOneSlipInALongerWordAndTheSameEachTime) {
  const std::string q = "When does the harbour ferry leave on Sundays?";
  const std::string t = testset::InjectTypo(q, 7);
  EXPECT_NE(t, q);
  EXPECT_EQ(t, testset::InjectTypo(q, 7));
  EXPECT_LE(std::abs(static_cast<int>(t.size()) - static_cast<int>(q.size())), 1);
  EXPECT_EQ(testset::InjectTypo("Is it on?", 7), "Is it on?");  // no word long enough
}

}  // namespace
}  // namespace tala
