// Service (include/tala/serve.h): ingest checked like dataset rows and committed whole, sampling
// by id hash, rows scored once (after a restart too), windows over stamped rows, backpressure,
// and the Prometheus text.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "analysis/ppi.h"
#include "support/mock_judge_server.h"
#include "support/temp_dir.h"
#include "tala/serve.h"

namespace tala {
namespace {

using testing::TempDir;

constexpr double kNow = 1796371200;  // 2026-12-04T08:00:00Z

std::string Row(const std::string& id, const std::string& response, double ts = 0,
                const std::string& tags = "") {
  std::string row = "{\"id\":\"" + id +
                    "\",\"user_input\":\"When does the ferry sail?\",\"response\":\"" + response +
                    "\",\"retrieved_contexts\":[\"The ferry sails every 20 minutes from Pier 3.\"]";
  if (ts > 0) row += ",\"timestamp\":" + std::to_string(static_cast<int64_t>(ts));
  if (!tags.empty()) row += ",\"tags\":" + tags;
  return row + "}";
}

const std::string kGood = "The ferry sails every 20 minutes from Pier 3.";
const std::string kBad = "The ferry sails every 5 minutes from Pier 9.";

std::unique_ptr<Service> Open(const std::string& db, ServeOptions o = {}) {
  o.db = db;
  auto s = Service::Open(o);
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  return s ? std::move(*s) : nullptr;
}

simdjson::dom::element Summary(Service& s, const std::string& window, simdjson::dom::parser& p,
                               const std::string& tag = "") {
  auto json = s.SummaryJson(window, tag, kNow);
  EXPECT_TRUE(json.has_value()) << json.error().ToString();
  return p.parse(*json);
}

TEST(ServiceTest, IngestsAnObjectOrJsonLinesAndScoresEachRowOnce) {
  TempDir dir;
  auto s = Open(dir.path() + "/t.sqlite");
  auto one = s->Ingest(Row("a", kGood), kNow);
  ASSERT_TRUE(one.has_value()) << one.error().ToString();
  EXPECT_EQ(one->accepted, 1);
  auto many = s->Ingest(Row("b", kGood) + "\n\n" + Row("c", kBad) + "\r\n", kNow);
  ASSERT_TRUE(many.has_value()) << many.error().ToString();
  EXPECT_EQ(many->accepted, 2);
  EXPECT_EQ(s->pending(), 3);
  EXPECT_EQ(*s->ScorePending(64), 3);
  EXPECT_EQ(*s->ScorePending(64), 0);  // nothing is scored twice
  simdjson::dom::parser p;
  auto sum = Summary(*s, "1h", p);
  EXPECT_EQ(int64_t(sum["rows_scored"]), 3);
  EXPECT_EQ(int64_t(sum["metrics"]["faithfulness"]["n"]), 3);
  // Two grounded answers and one that is not (the offline judge gives it next to nothing).
  EXPECT_NEAR(double(sum["metrics"]["faithfulness"]["mean"]), 2.0 / 3, 0.01);
  // No reference and no context_relevance served: nothing tells a retriever miss from the
  // generator, so the unsupported answer is not blamed on either (issue 57, N16).
  EXPECT_EQ(int64_t(sum["diagnoses"]["unknown (unsupported answer, retrieval not checked)"]), 1);
}

// POST /v1/labels (issue 55 item 4): people's labels of stored rows correct each window's mean
// as tala estimate would, beside the judge-only mean; bad labels are refused whole.
TEST(ServiceTest, LabelsCorrectTheWindowsMeanAsTheEstimateDoes) {
  TempDir dir;
  auto s = Open(dir.path() + "/t.sqlite");
  std::string rows;
  for (int i = 0; i < 12; ++i) rows += Row("r" + std::to_string(i), i % 4 ? kGood : kBad) + "\n";
  ASSERT_TRUE(s->Ingest(rows, kNow).has_value());
  ASSERT_EQ(*s->ScorePending(64), 12);
  simdjson::dom::parser p;
  auto before = Summary(*s, "1h", p);
  EXPECT_TRUE(before["metrics"]["faithfulness"]["corrected"].error());  // no labels yet
  // People say r0 (judged unsupported) is in fact fine, and agree with the judge on four more.
  const std::string labels =
      "{\"tala_labels\":{\"pick\":\"random\",\"seed\":1,\"metric\":\"faithfulness\"}}\n"
      "{\"id\":\"r0\",\"faithfulness\":1,\"labeller\":\"ana\"}\n"
      "{\"id\":\"r1\",\"faithfulness\":1}\n{\"id\":\"r2\",\"faithfulness\":1}\n"
      "{\"id\":\"r4\",\"faithfulness\":0}\n{\"id\":\"r5\",\"faithfulness\":true}\n"
      "{\"id\":\"nowhere\",\"faithfulness\":1}\n";
  auto added = s->AddLabels(labels, kNow);
  ASSERT_TRUE(added.has_value()) << added.error().ToString();
  EXPECT_EQ(added->stored, 6);
  EXPECT_EQ(added->unknown_ids, 1);
  simdjson::dom::parser q;
  auto after = Summary(*s, "1h", q);
  auto c = after["metrics"]["faithfulness"]["corrected"];
  ASSERT_FALSE(c.error()) << simdjson::to_string(after);
  EXPECT_EQ(int64_t(c["labels"]), 5);
  EXPECT_EQ(int64_t(c["rows"]), 12);
  // The same arithmetic tala estimate does, on the judge's values and these labels.
  std::vector<double> f_all, f_labelled, y;
  auto stored = s->Rows({});
  ASSERT_TRUE(stored.has_value()) << stored.error().ToString();
  std::map<std::string, double> judge;
  for (const StoredRow& row : *stored) {
    simdjson::dom::parser r;
    auto line = r.parse(row.result);
    judge[std::string(std::string_view(line["id"]))] = double(line["scores"]["faithfulness"]);
  }
  ASSERT_EQ(judge.size(), 12u);
  for (const auto& [id, v] : judge) f_all.push_back(v);
  for (const auto& [id, label] : std::vector<std::pair<std::string, double>>{
           {"r0", 1}, {"r1", 1}, {"r2", 1}, {"r4", 0}, {"r5", 1}}) {
    f_labelled.push_back(judge[id]);
    y.push_back(label);
  }
  const analysis::PpiResult expected = analysis::PredictionPoweredMean(f_all, f_labelled, y);
  EXPECT_NEAR(double(c["mean"]), expected.ppi.mean, 1e-9);
  EXPECT_NEAR(double(c["ci"].at(0)), expected.ppi.low, 1e-9);
  EXPECT_NEAR(double(c["ci"].at(1)), expected.ppi.high, 1e-9);
  // A label of a metric not served, or outside [0, 1], refuses the request; nothing is stored.
  auto bad = s->AddLabels("{\"id\":\"r3\",\"context_recall\":1}\n", kNow);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("not a metric this server scores"), std::string::npos);
  bad = s->AddLabels("{\"id\":\"r3\",\"faithfulness\":\"yes\"}\n", kNow);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().ToString().find("request:1: field \"faithfulness\""), std::string::npos)
      << bad.error().ToString();
}

TEST(ServiceTest, ABadRowRefusesTheWholeRequestNamingLineAndField) {
  TempDir dir;
  auto s = Open(dir.path() + "/t.sqlite");
  auto bad = s->Ingest(Row("a", kGood) + "\n{\"id\":\"b\",\"user_input\":7}\n", kNow);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), ErrorCode::kDataError);
  EXPECT_EQ(bad.error().where().line, 2);
  EXPECT_EQ(bad.error().where().field, "user_input");
  auto stamp = s->Ingest(
      Row("c", kGood).substr(0, Row("c", kGood).size() - 1) + ",\"timestamp\":\"yesterday\"}",
      kNow);
  EXPECT_EQ(stamp.error().where().field, "timestamp");
  EXPECT_EQ(s->Ingest("[1,2]", kNow).error().code(), ErrorCode::kDataError);
  EXPECT_EQ(s->Ingest("", kNow).error().code(), ErrorCode::kDataError);
  simdjson::dom::parser p;
  EXPECT_EQ(int64_t(Summary(*s, "1h", p)["rows_ingested"]), 0);  // all or nothing
}

TEST(ServiceTest, SamplingByIdHashIsDeterministic) {
  TempDir dir;
  ServeOptions o;
  o.sample = 0.3;
  auto a = Open(dir.path() + "/a.sqlite", o);
  auto b = Open(dir.path() + "/b.sqlite", o);
  std::string body;
  for (int i = 0; i < 400; ++i) body += Row("row-" + std::to_string(i), kGood) + "\n";
  auto x = a->Ingest(body, kNow);
  auto y = b->Ingest(body, kNow);
  ASSERT_TRUE(x.has_value() && y.has_value());
  EXPECT_EQ(x->sampled, y->sampled);  // the same rows in, the same out
  EXPECT_GT(x->sampled, 80);
  EXPECT_LT(x->sampled, 160);
  EXPECT_EQ(a->pending(), x->sampled);
}

TEST(ServiceTest, ATagCanHaveItsOwnShare) {
  TempDir dir;
  ServeOptions o;
  o.sample = 0;
  o.sample_by_tag = {{"route=checkout", 1.0}};
  auto s = Open(dir.path() + "/t.sqlite", o);
  std::string body = Row("a", kGood, 0, R"({"route":"checkout"})") + "\n" +
                     Row("b", kGood, 0, R"({"route":"faq"})") + "\n" + Row("c", kGood);
  auto answer = s->Ingest(body, kNow);
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->accepted, 3);
  EXPECT_EQ(answer->sampled, 1);
  o.sample_by_tag = {{"route", 0.5}};
  o.db = dir.path() + "/u.sqlite";
  EXPECT_EQ(Service::Open(o).error().code(), ErrorCode::kInvalidArgument);
}

TEST(ServiceTest, WindowsCountRowsByTheirTimestampAndTag) {
  TempDir dir;
  auto s = Open(dir.path() + "/t.sqlite");
  std::string body;
  // Rows stamped across 8 days: 2 in the last hour, 3 within a day, 4 within a week, 5 in all.
  const double ages[] = {600, 1800, 7200, 3 * 86400, 8 * 86400};
  for (int i = 0; i < 5; ++i) {
    body += Row("r" + std::to_string(i), i % 2 ? kBad : kGood, kNow - ages[i],
                i == 0 ? R"({"route":"faq"})" : R"({"route":"chat"})") +
            "\n";
  }
  ASSERT_TRUE(s->Ingest(body, kNow).has_value());
  ASSERT_EQ(*s->ScorePending(64), 5);
  simdjson::dom::parser p;
  EXPECT_EQ(int64_t(Summary(*s, "1h", p)["metrics"]["faithfulness"]["n"]), 2);
  EXPECT_EQ(int64_t(Summary(*s, "1d", p)["metrics"]["faithfulness"]["n"]), 3);
  EXPECT_EQ(int64_t(Summary(*s, "7d", p)["metrics"]["faithfulness"]["n"]), 4);
  EXPECT_EQ(int64_t(Summary(*s, "30d", p)["rows_ingested"]), 5);
  auto faq = Summary(*s, "7d", p, "route=faq");
  EXPECT_EQ(int64_t(faq["rows_ingested"]), 1);
  EXPECT_EQ(double(faq["metrics"]["faithfulness"]["mean"]), 1.0);
  EXPECT_EQ(s->SummaryJson("soon", "", kNow).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(s->SummaryJson("1h", "route", kNow).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(s->SummaryJson("1h", "ro\"ute=x", kNow).error().code(), ErrorCode::kInvalidArgument);
}

TEST(ServiceTest, RowsLeftPendingAreScoredAfterARestart) {
  TempDir dir;
  const std::string db = dir.path() + "/t.sqlite";
  {
    auto s = Open(db);
    ASSERT_TRUE(s->Ingest(Row("a", kGood) + "\n" + Row("b", kBad), kNow).has_value());
  }  // gone before scoring, as after kill -9
  auto s = Open(db);
  EXPECT_EQ(s->pending(), 2);
  EXPECT_EQ(*s->ScorePending(64), 2);
  simdjson::dom::parser p;
  EXPECT_EQ(int64_t(Summary(*s, "1h", p)["rows_scored"]), 2);
}

TEST(ServiceTest, ABacklogNeverRefusesRowsAndTheOldestPastTheCapAreSkippedAndCounted) {
  TempDir dir;
  ServeOptions o;
  o.max_pending = 3;
  o.max_rows_per_request = 3;
  auto s = Open(dir.path() + "/t.sqlite", o);
  ASSERT_TRUE(s->Ingest(Row("a", kGood) + "\n" + Row("b", kGood) + "\n" + Row("x", kGood), kNow)
                  .has_value());
  // The queue is full, and a row still comes in: stored and acknowledged.
  auto more = s->Ingest(Row("c", kGood) + "\n" + Row("d", kGood), kNow);
  ASSERT_TRUE(more.has_value()) << more.error().ToString();
  EXPECT_EQ(s->pending(), 5);
  // The scorer skips the two oldest and scores the three newest.
  EXPECT_EQ(*s->ScorePending(64), 3);
  EXPECT_EQ(s->pending(), 0);
  simdjson::dom::parser p;
  auto summary = Summary(*s, "1h", p);
  EXPECT_EQ(int64_t(summary["rows_ingested"]), 5);
  EXPECT_EQ(int64_t(summary["rows_scored"]), 3);
  EXPECT_EQ(int64_t(summary["rows_skipped"]), 2);
  EXPECT_NE(s->PrometheusText(kNow)->find("tala_rows_skipped_total 2\n"), std::string::npos);
  std::string four =
      Row("e", kGood) + "\n" + Row("f", kGood) + "\n" + Row("g", kGood) + "\n" + Row("h", kGood);
  EXPECT_EQ(s->Ingest(four, kNow).error().code(), ErrorCode::kInvalidArgument);
}

TEST(ServiceTest, PrometheusTextParsesBackToTheSummary) {
  TempDir dir;
  auto s = Open(dir.path() + "/t.sqlite");
  ASSERT_TRUE(s->Ingest(Row("a", kGood) + "\n" + Row("b", kBad), kNow - 60).has_value());
  ASSERT_EQ(*s->ScorePending(64), 2);
  auto text = s->PrometheusText(kNow);
  ASSERT_TRUE(text.has_value());
  // Every line is a comment or `name{labels} value`.
  std::regex sample(R"(^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? -?[0-9.e+-]+$)");
  std::map<std::string, double> values;
  size_t at = 0;
  while (at < text->size()) {
    size_t nl = text->find('\n', at);
    std::string line = text->substr(at, nl - at);
    at = nl + 1;
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) continue;
    ASSERT_TRUE(std::regex_match(line, sample)) << line;
    size_t space = line.rfind(' ');
    values[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  EXPECT_EQ(values["tala_rows_ingested_total"], 2);
  EXPECT_EQ(values["tala_rows_scored_total"], 2);
  EXPECT_EQ(values["tala_queue_depth"], 0);
  simdjson::dom::parser p;
  EXPECT_DOUBLE_EQ(values["tala_metric_mean{metric=\"faithfulness\",window=\"1h\"}"],
                   double(Summary(*s, "1h", p)["metrics"]["faithfulness"]["mean"]));
  EXPECT_EQ(values["tala_metric_rows{metric=\"faithfulness\",window=\"7d\"}"], 2);
}

std::string Rows(const std::string& prefix, int n, const std::string& response, double ts) {
  std::string body;
  for (int i = 0; i < n; ++i) body += Row(prefix + std::to_string(i), response, ts) + "\n";
  return body;
}

TEST(ServiceTest, AnAlertFiresOnceAndClearsWithHysteresis) {
  TempDir dir;
  ServeOptions o;
  auto rule = ParseAlertRule("faithfulness.mean_1d < 0.70");
  ASSERT_TRUE(rule.has_value());
  rule->min_rows = 5;
  rule->webhook = "http://127.0.0.1:9/hook";
  o.alerts = {*rule};
  const std::string db = dir.path() + "/t.sqlite";
  auto s = Open(db, o);
  auto step = [&](const std::string& body, double at) {
    EXPECT_TRUE(s->Ingest(body, at).has_value());
    EXPECT_GT(*s->ScorePending(1000), 0);
    return *s->CheckAlerts(at);
  };
  // Four bad rows: below the threshold but under min_rows.
  EXPECT_TRUE(step(Rows("a", 4, kBad, kNow - 100), kNow).empty());
  auto fired = step(Rows("b", 1, kBad, kNow - 90), kNow);
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0].event, "fired");
  EXPECT_EQ(fired[0].n, 5);
  EXPECT_NE(fired[0].Payload().find("\"event\":\"fired\""), std::string::npos);
  EXPECT_TRUE(s->CheckAlerts(kNow + 1)->empty());  // once
  // Eleven good rows: mean 11/16 = 0.6875, still below; twelve: 12/17 = 0.706, above 0.70 but
  // not past the margin (0.72); fourteen: 14/19 = 0.737 clears.
  EXPECT_TRUE(step(Rows("c", 11, kGood, kNow - 50), kNow + 2).empty());
  EXPECT_TRUE(step(Rows("d", 1, kGood, kNow - 40), kNow + 3).empty());
  auto cleared = step(Rows("e", 2, kGood, kNow - 30), kNow + 4);
  ASSERT_EQ(cleared.size(), 1u);
  EXPECT_EQ(cleared[0].event, "cleared");
  // Both wait for their webhook until it takes them; state and history survive a restart.
  EXPECT_EQ(s->UndeliveredAlerts()->size(), 2u);
  ASSERT_TRUE(s->MarkAlertDelivered(fired[0].id).ok());
  s.reset();
  s = Open(db, o);
  EXPECT_TRUE(s->CheckAlerts(kNow + 5)->empty());
  EXPECT_EQ(s->UndeliveredAlerts()->size(), 1u);
  simdjson::dom::parser p;
  auto alerts = p.parse(*s->AlertsJson());
  EXPECT_FALSE(bool(alerts["rules"].at(0)["firing"]));
  EXPECT_EQ(alerts["history"].get_array().size(), 2u);
}

TEST(ServiceTest, AlertRulesAreCheckedWhenRead) {
  EXPECT_FALSE(ParseAlertRule("faithfulness < 0.7").has_value());
  EXPECT_FALSE(ParseAlertRule("faithfulness.mean_1w < 0.7").has_value());
  EXPECT_FALSE(ParseAlertRule("faithfulness.mean_1d ~ 0.7").has_value());
  auto r = ParseAlertRule("noise_sensitivity.mean_90m >= 0.3");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->window_seconds, 5400);
  EXPECT_EQ(r->op, ">=");
  TempDir dir;
  ServeOptions o;
  o.db = dir.path() + "/t.sqlite";
  o.alerts = {*ParseAlertRule("context_recall.mean_1d < 0.5")};
  auto s = Service::Open(o);
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().message().find("not among the served metrics"), std::string::npos);
}

TEST(ServiceTest, FailingRowsExportAsResultsAndAsReceived) {
  TempDir dir;
  auto s = Open(dir.path() + "/t.sqlite");
  ASSERT_TRUE(s->Ingest(Rows("old", 2, kBad, kNow - 7200), kNow).has_value());
  ASSERT_TRUE(s->Ingest(Rows("bad", 3, kBad, kNow - 60) + Rows("good", 4, kGood, kNow - 60), kNow)
                  .has_value());
  ASSERT_EQ(*s->ScorePending(100), 9);
  RowQuery q;
  q.since = kNow - 3600;
  q.metric = "faithfulness";
  q.max_score = 0.5;
  auto rows = s->Rows(q);
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[0].row, Row("bad0", kBad, kNow - 60));  // as received
  EXPECT_EQ((*rows)[0].result.rfind("{\"id\":\"bad0\",\"scores\":", 0), 0u);
  q.max_score.reset();
  EXPECT_EQ(s->Rows(q)->size(), 7u);
  q.metric.clear();
  q.since = 0;
  EXPECT_EQ(s->Rows(q)->size(), 9u);
  q.max_score = 0.5;
  EXPECT_EQ(s->Rows(q).error().code(), ErrorCode::kInvalidArgument);
  q.metric = "context_recall";
  EXPECT_EQ(s->Rows(q).error().code(), ErrorCode::kInvalidArgument);
}

ServeOptions MockJudged(const testing::MockJudgeServer& mock) {
  ServeOptions o;
  o.judge = "openai:mock-model";
  o.llm.base_url = mock.base_url();
  o.llm.api_key = "test";
  o.llm.cache = "off";
  o.llm.max_in_flight = 8;  // within the mock's threads
  return o;
}

TEST(ServiceTest, AnLlmJudgeScoresThroughTheRuntimeAndItsCallsAreCounted) {
  testing::MockJudgeServer mock;
  ASSERT_TRUE(mock.Start());
  TempDir dir;
  auto s = Open(dir.path() + "/t.sqlite", MockJudged(mock));
  ASSERT_TRUE(
      s->Ingest(Rows("m", 6, kGood, kNow - 60) + Rows("n", 2, kBad, kNow - 60), kNow).has_value());
  EXPECT_EQ(*s->ScorePending(64), 8);
  simdjson::dom::parser p;
  auto sum = Summary(*s, "1h", p);
  EXPECT_EQ(int64_t(sum["rows_scored"]), 8);
  EXPECT_EQ(int64_t(sum["metrics"]["faithfulness"]["n"]), 8);
  EXPECT_GT(mock.stats().chat_requests, 0);
  std::string text = *s->PrometheusText(kNow);
  EXPECT_NE(text.find("tala_judge_calls_total " + std::to_string(mock.stats().requests)),
            std::string::npos)
      << text;
}

// A judge profile's labelled examples reach the LLM judge's calls in production too, as data
// inside the request (issue 55).
TEST(ServiceTest, AnLlmJudgeSeesTheProfilesLabelledExamples) {
  testing::MockJudgeOptions mo;
  mo.record_requests = true;
  testing::MockJudgeServer mock(mo);
  ASSERT_TRUE(mock.Start());
  TempDir dir;
  ServeOptions o = MockJudged(mock);
  o.llm.labelled_examples = {
      {"faithfulness", "When does the ferry sail?", "It sails at noon from Pier 9.", false}};
  auto s = Open(dir.path() + "/t.sqlite", o);
  ASSERT_TRUE(s->Ingest(Rows("m", 2, kGood, kNow - 60), kNow).has_value());
  EXPECT_EQ(*s->ScorePending(64), 2);
  int shown = 0;
  for (const auto& r : mock.requests()) {
    shown +=
        r.user.find("\"labelled_examples\":[{\"metric\":\"faithfulness\"") != std::string::npos;
  }
  EXPECT_GE(shown, 2);
}

// Turn rows of a conversation wait until it is quiet, become one row and are judged turn by
// turn through the LLM runtime: a conversation of n turns costs n turns' calls, never more.
TEST(ServiceTest, AConversationsTurnsAreJudgedOnceEachThroughTheRuntime) {
  testing::MockJudgeServer mock;
  ASSERT_TRUE(mock.Start());
  TempDir dir;
  ServeOptions o = MockJudged(mock);
  o.metrics = {"turn_faithfulness"};
  o.session_quiet = 30;
  auto s = Open(dir.path() + "/t.sqlite", o);
  auto turns = [](const std::string& conversation, int n) {
    std::string out;
    for (int t = 1; t <= n; ++t) {
      out += "{\"conversation_id\":\"" + conversation + "\",\"turn\":" + std::to_string(t) +
             ",\"user_input\":\"When does the ferry sail?\",\"response\":\"" + kGood +
             "\",\"retrieved_contexts\":[\"The ferry sails every 20 minutes from Pier 3.\"]}\n";
    }
    return out;
  };
  auto calls_for = [&](const std::string& conversation, int n, double at) {
    const int64_t before = mock.stats().chat_requests;
    auto in = s->Ingest(turns(conversation, n), at);
    EXPECT_TRUE(in.has_value()) << in.error().ToString();
    if (in) {
      EXPECT_EQ(in->turns_held, n);
    }
    EXPECT_EQ(*s->FlushSessions(at + 29), 0);  // not quiet yet
    EXPECT_EQ(*s->FlushSessions(at + 30), 1);
    EXPECT_EQ(*s->ScorePending(64), 1);
    return mock.stats().chat_requests - before;
  };
  const int64_t one = calls_for("one", 1, kNow - 600);
  const int64_t three = calls_for("three", 3, kNow - 300);
  EXPECT_GT(one, 0);
  EXPECT_EQ(three, 3 * one);
  auto rows = s->Rows(RowQuery{});
  ASSERT_TRUE(rows.has_value());
  ASSERT_EQ(rows->size(), 2u);
  simdjson::dom::parser p;
  for (const StoredRow& r : *rows) {
    simdjson::dom::element line = p.parse(r.result);
    EXPECT_EQ(line["turns"].get_array().size(), line["id"].get_string().value() == "one" ? 1u : 3u)
        << r.result;
    EXPECT_EQ(double(line["scores"]["turn_faithfulness"]), 1.0) << r.result;
  }
  EXPECT_EQ(s->open_sessions(), 0);
}

TEST(ServiceTest, MetricsDefinedInTheConfigAreScoredToo) {
  testing::MockJudgeServer mock;
  ASSERT_TRUE(mock.Start());
  TempDir dir;
  ServeOptions o = MockJudged(mock);
  UserMetricDef grounded;
  grounded.name = "grounded";
  grounded.prompt = "Is {response} backed by {retrieved_contexts}?";
  grounded.output = UserMetricDef::Output::kDiscrete;
  grounded.values = {"no", "yes"};
  o.user_metrics = {grounded};
  o.metrics = "grounded,rubrics_score";
  o.rubrics = {{"score1", "wrong"}, {"score2", "right"}};
  auto s = Open(dir.path() + "/t.sqlite", o);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Ingest(Rows("m", 3, kGood, kNow - 60), kNow).has_value());
  EXPECT_EQ(*s->ScorePending(64), 3);
  simdjson::dom::parser p;
  auto sum = Summary(*s, "1h", p);
  EXPECT_EQ(int64_t(sum["metrics"]["grounded"]["n"]), 3);
  EXPECT_EQ(double(sum["metrics"]["grounded"]["mean"]), 1.0);  // the mock: full overlap
  EXPECT_EQ(double(sum["metrics"]["rubrics_score"]["mean"]), 2.0);
  EXPECT_EQ(mock.stats().chat_requests, 3) << "one criteria call a row serves both";
}

TEST(ServiceTest, PastTheDailyBudgetRowsAreSkippedAndCounted) {
  testing::MockJudgeServer mock;
  ASSERT_TRUE(mock.Start());
  TempDir dir;
  ServeOptions o = MockJudged(mock);
  o.llm.price_input = 1000;  // USD per million tokens: a few rows spend the budget
  o.llm.price_output = 1000;
  o.max_cost_per_day = 0.01;
  auto s = Open(dir.path() + "/t.sqlite", o);
  ASSERT_TRUE(s->Ingest(Rows("m", 12, kGood, kNow - 60), kNow).has_value());
  EXPECT_EQ(*s->ScorePending(4), 4);  // spends more than a cent
  int64_t requests = mock.stats().requests;
  EXPECT_EQ(*s->ScorePending(64), 8);  // skipped, without a call
  EXPECT_EQ(mock.stats().requests, requests);
  simdjson::dom::parser p;
  auto sum = Summary(*s, "1h", p);
  EXPECT_EQ(int64_t(sum["rows_scored"]), 4);
  EXPECT_EQ(int64_t(sum["rows_skipped"]), 8);
  EXPECT_EQ(int64_t(sum["rows_pending"]), 0);
}

TEST(ServiceTest, TimestampsReadAsIso8601Utc) {
  EXPECT_EQ(*ParseTimestamp("2026-12-04T08:00:00Z"), kNow);
  EXPECT_EQ(*ParseTimestamp("2026-12-04T08:00:00.5+00:00"), kNow + 0.5);
  EXPECT_FALSE(ParseTimestamp("2026-12-04 08:00").has_value());
  EXPECT_FALSE(ParseTimestamp("2026-12-04T08:00:00+02:00").has_value());
}

}  // namespace
}  // namespace tala

namespace tala {
namespace {

// Rows over three hours, three routes, good and bad answers.
void IngestSpread(Service& s) {
  std::string body;
  for (int i = 0; i < 60; ++i) {
    const char* route = i % 3 == 0 ? "faq" : i % 3 == 1 ? "checkout" : "a \"quoted\"\nroute";
    body += Row("r" + std::to_string(i), i % 4 == 0 ? kBad : kGood, kNow - 3 * 3600 + i * 170,
                "{\"route\":\"" + std::string(i % 3 == 2 ? "a \\\"quoted\\\"\\nroute" : route) +
                    "\",\"user\":\"u" + std::to_string(i % 5) + "\"}") +
            "\n";
  }
  ASSERT_TRUE(s.Ingest(body, kNow).has_value());
  while (s.pending() > 0) ASSERT_TRUE(s.ScorePending(16).has_value());
}

// The series about rows and scores (not the HTTP and process series, which change by nature).
std::string RowSeries(const std::string& text) {
  return text.substr(0, text.find("# HELP tala_http_requests_total"));
}

// Two summaries alike: the same fields and counts, and means equal but for the last bits (the
// rows, the aggregates and a rebuild add the same values in other orders, and a sanitizer build
// rounds some of those sums otherwise).
void ExpectSameSummary(const std::string& got, const std::string& want) {
  using nlohmann::json;
  std::function<void(const json&, const json&, const std::string&)> same =
      [&](const json& a, const json& b, const std::string& at) {
        if (a.is_number_float() || b.is_number_float()) {
          ASSERT_TRUE(a.is_number() && b.is_number()) << at;
          EXPECT_NEAR(a.get<double>(), b.get<double>(), 1e-12) << at;
        } else if (a.is_object() && b.is_object()) {
          ASSERT_EQ(a.size(), b.size()) << at;
          for (auto it = b.begin(); it != b.end(); ++it) {
            ASSERT_TRUE(a.contains(it.key())) << at << "." << it.key();
            same(a[it.key()], it.value(), at + "." + it.key());
          }
        } else if (a.is_array() && b.is_array()) {
          ASSERT_EQ(a.size(), b.size()) << at;
          for (size_t i = 0; i < a.size(); ++i)
            same(a[i], b[i], at + "[" + std::to_string(i) + "]");
        } else {
          EXPECT_EQ(a, b) << at;
        }
      };
  same(json::parse(got), json::parse(want), "summary");
}

TEST(AggregatesTest, WindowsFromTheAggregatesEqualTheRowsAndSurviveARestartAndARebuild) {
  TempDir dir;
  const std::string db = dir.path() + "/t.sqlite";
  ServeOptions o;
  o.tag_keys = {"route"};
  std::string by_rows, by_tag, metrics_text;
  {
    auto s = Open(db, o);
    IngestSpread(*s);
    // Two conversations (of 2 and 3 answered turns; a blank ai message is no turn), counted as
    // rows and as conversations and turns, from the aggregates, the rows and a rebuild alike.
    std::string chats;
    for (int c = 0; c < 2; ++c) {
      chats += "{\"id\":\"chat" + std::to_string(c) +
               "\",\"timestamp\":" + std::to_string(static_cast<int64_t>(kNow - 2 * 3600)) +
               ",\"tags\":{\"route\":\"faq\",\"user\":\"u1\"},\"user_input\":[";
      for (int t = 0; t < 2 + c; ++t) {
        chats += std::string(t ? "," : "") +
                 "{\"type\":\"human\",\"content\":\"When does the ferry sail?\"},"
                 "{\"type\":\"ai\",\"content\":\"" +
                 kGood + "\"}";
      }
      chats += ",{\"type\":\"ai\",\"content\":\" \"}]}\n";
    }
    ASSERT_TRUE(s->Ingest(chats, kNow).has_value());
    while (s->pending() > 0) ASSERT_TRUE(s->ScorePending(16).has_value());
    // A tag key that is not broken down is summed from the rows: the same numbers.
    auto from_rows = s->SummaryJson("1d", "user=u1", kNow);
    ASSERT_TRUE(from_rows.has_value());
    by_rows = *from_rows;
    EXPECT_NE(by_rows.find("\"rows_ingested\":14,"), std::string::npos) << by_rows;
    EXPECT_NE(by_rows.find("\"conversations\":2,\"turns\":5,"), std::string::npos) << by_rows;
    by_tag = *s->SummaryJson("1d", "route=faq", kNow);
    EXPECT_NE(by_tag.find("\"rows_ingested\":22,\"rows_sampled\":22,\"rows_scored\":22"),
              std::string::npos)
        << by_tag;
    EXPECT_NE(by_tag.find("\"conversations\":2,\"turns\":5,"), std::string::npos) << by_tag;
    auto all = s->SummaryJson("1d", "", kNow);
    EXPECT_NE(all->find("\"rows_ingested\":62,"), std::string::npos) << *all;
    // A window of the last hour holds only the rows stamped in it (whole minutes).
    auto hour = s->SummaryJson("1h", "", kNow);
    EXPECT_NE(hour->find("\"rows_ingested\":17,"), std::string::npos) << *hour;
    metrics_text = *s->PrometheusText(kNow);
  }
  {
    auto reopened = Open(db, o);
    ExpectSameSummary(*reopened->SummaryJson("1d", "route=faq", kNow), by_tag);
    EXPECT_EQ(RowSeries(*reopened->PrometheusText(kNow)), RowSeries(metrics_text));
  }
  // Another set of tag keys: built again from the rows, with the same totals.
  ServeOptions other = o;
  other.tag_keys = {"route", "user"};
  auto rebuilt = Open(db, other);
  ExpectSameSummary(*rebuilt->SummaryJson("1d", "route=faq", kNow), by_tag);
  auto by_user = rebuilt->SummaryJson("1d", "user=u1", kNow);
  ExpectSameSummary(*by_user, by_rows);
}

TEST(AggregatesTest, ARepeatedIdIsStoredOnceAndCountedAsADuplicate) {
  TempDir dir;
  auto s = Open(dir.path() + "/t.sqlite");
  ASSERT_TRUE(s->Ingest(Row("a", kGood), kNow).has_value());
  auto again = s->Ingest(Row("a", kBad) + "\n" + Row("b", kGood), kNow);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->accepted, 2);
  EXPECT_EQ(again->duplicates, 1);
  EXPECT_EQ(*s->ScorePending(64), 2);
  simdjson::dom::parser p;
  auto summary = Summary(*s, "1h", p);
  EXPECT_EQ(int64_t(summary["rows_ingested"]), 2);
  EXPECT_EQ(int64_t(summary["rows_scored"]), 2);
  EXPECT_EQ(int64_t(summary["rows_duplicate"]), 1);
  EXPECT_NE(s->PrometheusText(kNow)->find("tala_rows_duplicate_total 1\n"), std::string::npos);
}

TEST(AggregatesTest, PrometheusTextHasHistogramsTagsEscapedLabelsAndValidLines) {
  TempDir dir;
  ServeOptions o;
  o.tag_keys = {"route"};
  o.max_tag_values = 2;
  auto s = Open(dir.path() + "/t.sqlite", o);
  IngestSpread(*s);
  s->RecordHttp("/v1/interactions", 202, 0.004);
  s->RecordHttp("/metrics", 200, 0.3);
  std::string text = *s->PrometheusText(kNow);
  EXPECT_NE(text.find("# TYPE tala_metric_value histogram\n"), std::string::npos);
  EXPECT_NE(text.find("tala_metric_value_bucket{metric=\"faithfulness\",le=\"+Inf\"} 60\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tala_metric_value_count{metric=\"faithfulness\"} 60\n"), std::string::npos);
  // Two route values kept, the third (20 rows) capped and counted.
  EXPECT_NE(text.find("tala_tag_rows_ingested_total{tag_key=\"route\",tag_value=\"faq\"} 20\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tala_tag_values_capped_total 20\n"), std::string::npos) << text;
  EXPECT_NE(text.find("tala_http_requests_total{route=\"/v1/interactions\",code=\"202\"} 1\n"),
            std::string::npos);
  EXPECT_NE(
      text.find("tala_http_request_duration_seconds_bucket{route=\"/metrics\",le=\"0.25\"} 0\n"
                "tala_http_request_duration_seconds_bucket{route=\"/metrics\",le=\"0.5\"} 1\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("process_resident_memory_bytes "), std::string::npos);
  // Every line is a comment or a sample of the exposition format.
  std::regex sample(
      R"(^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\\\|\\"|\\n)*",?)*\})? -?[0-9.e+Inf-]+$)");
  size_t at = 0, samples = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    std::string line = text.substr(at, nl - at);
    at = nl + 1;
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) continue;
    EXPECT_TRUE(std::regex_match(line, sample)) << line;
    ++samples;
  }
  EXPECT_GT(samples, 40u);

  // A value with a quote and a newline is escaped, not a broken scrape.
  ServeOptions all = o;
  all.max_tag_values = 10;
  TempDir other;
  auto t = Open(other.path() + "/t.sqlite", all);
  IngestSpread(*t);
  std::string escaped = *t->PrometheusText(kNow);
  EXPECT_NE(escaped.find("tag_value=\"a \\\"quoted\\\"\\nroute\"} 20\n"), std::string::npos)
      << escaped;
}

}  // namespace
}  // namespace tala

namespace tala {
namespace {

TEST(RetentionTest, RowsPastTheAgeGoInBatchesWaitingRowsStayAndTheWindowsKeepThem) {
  TempDir dir;
  ServeOptions o;
  o.retain_days = 1;
  auto s = Open(dir.path() + "/t.sqlite", o);
  std::string old_rows, new_rows;
  for (int i = 0; i < 10; ++i)
    old_rows += Row("old" + std::to_string(i), kGood, kNow - 3 * 86400) + "\n";
  for (int i = 0; i < 5; ++i) new_rows += Row("new" + std::to_string(i), kGood, kNow - 3600) + "\n";
  ASSERT_TRUE(s->Ingest(old_rows + new_rows, kNow).has_value());
  ASSERT_EQ(*s->ScorePending(64), 15);
  // Two old rows still waiting to be scored are not deleted.
  ASSERT_TRUE(s->Ingest(Row("late1", kGood, kNow - 3 * 86400) + "\n" +
                            Row("late2", kGood, kNow - 3 * 86400),
                        kNow)
                  .has_value());
  int64_t total = 0;
  for (int round = 0; round < 10; ++round) {
    auto removed = s->Prune(kNow, 4);
    ASSERT_TRUE(removed.has_value()) << removed.error().ToString();
    EXPECT_LE(*removed, 4);
    total += *removed;
    if (*removed == 0) break;
  }
  EXPECT_EQ(total, 10);
  auto kept = s->Rows({.since = 0});
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->size(), 5u);
  EXPECT_EQ(s->pending(), 2);
  // The windows read the aggregates: what was deleted is still counted there.
  simdjson::dom::parser p;
  EXPECT_EQ(int64_t(Summary(*s, "7d", p)["rows_ingested"]), 17);
  EXPECT_NE(s->PrometheusText(kNow)->find("tala_rows_deleted_total 10\n"), std::string::npos);
  // The two late rows are scored, then old enough to go too.
  ASSERT_EQ(*s->ScorePending(64), 2);
  EXPECT_EQ(*s->Prune(kNow), 2);
}

TEST(RetentionTest, PastMaxDbBytesTheOldestRowsGoFirst) {
  TempDir dir;
  ServeOptions o;
  o.max_db_bytes = 400 * 1024;
  auto s = Open(dir.path() + "/t.sqlite", o);
  const std::string padding(400, 'x');
  for (int batch = 0; batch < 10; ++batch) {
    std::string body;
    for (int i = 0; i < 200; ++i) {
      body += Row("r" + std::to_string(batch * 200 + i), kGood + " " + padding, kNow - 60) + "\n";
    }
    o.max_rows_per_request = 200;
    ASSERT_TRUE(s->Ingest(body, kNow).has_value());
    while (s->pending() > 0) ASSERT_TRUE(s->ScorePending(256).has_value());
  }
  int64_t removed = 0;
  for (int round = 0; round < 100; ++round) {
    auto r = s->Prune(kNow, 100);
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
    removed += *r;
    if (*r == 0) break;
  }
  EXPECT_GT(removed, 0);
  auto kept = s->Rows({.since = 0, .limit = 5000});
  ASSERT_TRUE(kept.has_value());
  ASSERT_FALSE(kept->empty());
  EXPECT_EQ(static_cast<int64_t>(kept->size()) + removed, 2000);
  // The newest row is kept, the oldest is gone.
  EXPECT_NE(kept->back().result.find("\"id\":\"r1999\""), std::string::npos);
  EXPECT_EQ(kept->front().result.find("\"id\":\"r0\""), std::string::npos);
}

}  // namespace
}  // namespace tala

namespace tala {
namespace {

std::unique_ptr<Service> FiringService(const std::string& db, bool clear_on_no_data) {
  ServeOptions o;
  auto rule = ParseAlertRule("faithfulness.mean_1h < 0.70");
  EXPECT_TRUE(rule.has_value());
  rule->min_rows = 2;
  rule->webhook = "http://127.0.0.1:9/hook";
  rule->clear_on_no_data = clear_on_no_data;
  o.alerts = {*rule};
  auto s = Open(db, o);
  EXPECT_TRUE(
      s->Ingest(Row("a", kBad, kNow - 100) + "\n" + Row("b", kBad, kNow - 90), kNow).has_value());
  EXPECT_EQ(*s->ScorePending(64), 2);
  return s;
}

TEST(AlertDeliveryTest, FailedDeliveriesBackOffExponentiallyAndEveryAttemptIsShown) {
  TempDir dir;
  auto s = FiringService(dir.path() + "/t.sqlite", false);
  auto fired = *s->CheckAlerts(kNow);
  ASSERT_EQ(fired.size(), 1u);
  const int64_t id = fired[0].id;
  EXPECT_NE(
      s->PrometheusText(kNow)->find("tala_alert_firing{rule=\"faithfulness.mean_1h < 0.70\"} 1\n"),
      std::string::npos);
  double at = kNow;
  double previous_wait = 0;
  for (int attempt = 1; attempt <= 12; ++attempt) {
    ASSERT_EQ(s->UndeliveredAlerts(at)->size(), 1u) << attempt;
    ASSERT_TRUE(s->RecordAlertAttempt(id, at, 500, "HTTP 500").ok());
    // Not due again at once: the wait doubles (with ±20% jitter), up to 5 minutes.
    const double base = std::min(300.0, std::ldexp(1.0, attempt - 1));
    const double step = std::max(0.05, base / 100);
    double wait = 0;
    while (s->UndeliveredAlerts(at + wait)->empty() && wait < 1000) wait += step;
    EXPECT_GE(wait, 0.8 * base - step) << attempt;
    EXPECT_LE(wait, 1.2 * base + step) << attempt;
    if (attempt > 1 && base < 300) {
      EXPECT_GT(wait, previous_wait) << attempt;
    }
    previous_wait = wait;
    at += wait;
  }
  ASSERT_TRUE(s->RecordAlertAttempt(id, at, 0, "Connection refused").ok());
  ASSERT_TRUE(s->RecordAlertAttempt(id, at + 400, 204, "").ok());
  EXPECT_TRUE(s->UndeliveredAlerts(at + 1e6)->empty());
  simdjson::dom::parser p;
  auto alerts = p.parse(*s->AlertsJson());
  auto event = alerts["history"].at(0);
  EXPECT_TRUE(bool(event["delivered"]));
  EXPECT_EQ(int64_t(event["attempts"]), 14);
  EXPECT_EQ(alerts["attempts"].get_array().size(), 14u);
  EXPECT_EQ(int64_t(alerts["attempts"].at(0)["status"]), 204);
  EXPECT_EQ(std::string_view(alerts["attempts"].at(1)["error"]), "Connection refused");
}

TEST(AlertDeliveryTest, AnEmptyWindowClearsAFiringRuleOnlyWhenConfigured) {
  for (bool clear : {true, false}) {
    TempDir dir;
    auto s = FiringService(dir.path() + "/t.sqlite", clear);
    ASSERT_EQ(s->CheckAlerts(kNow)->size(), 1u);
    // Two hours later the 1h window holds no row.
    auto later = *s->CheckAlerts(kNow + 2 * 3600);
    if (clear) {
      ASSERT_EQ(later.size(), 1u);
      EXPECT_EQ(later[0].event, "cleared");
      EXPECT_EQ(later[0].n, 0);
      EXPECT_NE(s->PrometheusText(kNow)->find("} 0\n# HELP tala_queue_depth"), std::string::npos);
    } else {
      EXPECT_TRUE(later.empty());
    }
  }
}

}  // namespace
}  // namespace tala
