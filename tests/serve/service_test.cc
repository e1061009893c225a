// Service (include/tala/serve.h): ingest checked like dataset rows and committed whole, sampling
// by id hash, rows scored once (after a restart too), windows over stamped rows, backpressure,
// and the Prometheus text.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <regex>
#include <string>

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
  EXPECT_EQ(int64_t(sum["diagnoses"]["generator not grounded"]), 1);
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

TEST(ServiceTest, AFullQueueRefusesSampledRowsUntilScored) {
  TempDir dir;
  ServeOptions o;
  o.max_pending = 2;
  o.max_rows_per_request = 3;
  auto s = Open(dir.path() + "/t.sqlite", o);
  ASSERT_TRUE(s->Ingest(Row("a", kGood) + "\n" + Row("b", kGood), kNow).has_value());
  auto full = s->Ingest(Row("c", kGood), kNow);
  EXPECT_EQ(full.error().code(), ErrorCode::kUnavailable);
  ASSERT_EQ(*s->ScorePending(64), 2);
  EXPECT_TRUE(s->Ingest(Row("c", kGood), kNow).has_value());
  std::string four =
      Row("d", kGood) + "\n" + Row("e", kGood) + "\n" + Row("f", kGood) + "\n" + Row("g", kGood);
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

TEST(ServiceTest, TimestampsReadAsIso8601Utc) {
  EXPECT_EQ(*ParseTimestamp("2026-12-04T08:00:00Z"), kNow);
  EXPECT_EQ(*ParseTimestamp("2026-12-04T08:00:00.5+00:00"), kNow + 0.5);
  EXPECT_FALSE(ParseTimestamp("2026-12-04 08:00").has_value());
  EXPECT_FALSE(ParseTimestamp("2026-12-04T08:00:00+02:00").has_value());
}

}  // namespace
}  // namespace tala
