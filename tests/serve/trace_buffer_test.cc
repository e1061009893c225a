// The trace buffer (Service::IngestTraces, FlushTraces): spans of one trace sent in several
// requests wait by trace id and become one row once the root has ended and the linger passed;
// they survive a restart; late spans and spans past the cap are refused and counted; and the
// scoring lag.

#include <gtest/gtest.h>

#include <string>

#include "support/temp_dir.h"
#include "tala/serve.h"

namespace tala {
namespace {

using testing::TempDir;

constexpr double kNow = 1796371200;  // 2026-12-04T08:00:00Z

std::string Attr(const std::string& key, const std::string& value) {
  return R"({"key":")" + key + R"(","value":{"stringValue":)" + value + "}}";
}

// One request holding `span` (an OTLP JSON span object) of service "shop".
std::string Request(const std::string& span) {
  return R"({"resourceSpans":[{"resource":{"attributes":[)" + Attr("service.name", "\"shop\"") +
         R"(]},"scopeSpans":[{"spans":[)" + span + "]}]}]}";
}

std::string Span(const std::string& trace, const std::string& id, const std::string& parent,
                 const std::string& attributes) {
  return R"({"traceId":")" + trace + R"(","spanId":")" + id + R"(","parentSpanId":")" + parent +
         R"(","endTimeUnixNano":"1796371200000000000","attributes":[)" + attributes + "]}";
}

std::string Retrieval(const std::string& trace) {
  return Request(Span(trace, "b2", "a1",
                      Attr("gen_ai.operation.name", "\"retrieval\"") + "," +
                          Attr("gen_ai.retrieval.documents",
                               R"("[{\"id\":\"doc-7\",\"content\":\"The ferry sails every 20 )"
                               R"(minutes from Pier 3.\"}]")")));
}

std::string Chat(const std::string& trace) {
  return Request(Span(
      trace, "c3", "a1",
      Attr("gen_ai.operation.name", "\"chat\"") + "," +
          Attr("gen_ai.input.messages",
               R"("[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"When does )"
               R"(the ferry sail?\"}]}]")") +
          "," +
          Attr("gen_ai.output.messages",
               R"("[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"Every )"
               R"(20 minutes, from Pier 3.\"}]}]")")));
}

std::string Root(const std::string& trace) {
  return Request(Span(trace, "a1", "", Attr("http.route", "\"/ask\"")));
}

std::unique_ptr<Service> Open(const std::string& db, ServeOptions o = {}) {
  o.db = db;
  o.metrics = "faithfulness";
  auto s = Service::Open(o);
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  return s ? std::move(*s) : nullptr;
}

std::string Metrics(Service& s, double now) {
  auto text = s.PrometheusText(now);
  EXPECT_TRUE(text.has_value());
  return text ? *text : "";
}

TEST(TraceBufferTest, SpansOfOneTraceInThreeRequestsBecomeOneRowWithItsDocuments) {
  TempDir dir;
  auto s = Open(dir.path() + "/t.sqlite");
  auto first = s->IngestTraces(Retrieval("t1"), kNow);
  ASSERT_TRUE(first.has_value()) << first.error().ToString();
  EXPECT_EQ(first->accepted, 1);
  ASSERT_TRUE(s->IngestTraces(Root("t1"), kNow + 1).has_value());
  ASSERT_TRUE(s->IngestTraces(Chat("t1"), kNow + 2).has_value());
  EXPECT_EQ(s->open_traces(), 1);
  // The root has ended, but spans may still come until the linger (10 s) has passed.
  EXPECT_EQ(*s->FlushTraces(kNow + 11), 0);
  EXPECT_EQ(s->pending(), 0);
  EXPECT_EQ(*s->FlushTraces(kNow + 12), 1);
  EXPECT_EQ(s->open_traces(), 0);
  EXPECT_EQ(s->pending(), 1);
  EXPECT_EQ(*s->ScorePending(8), 1);
  RowQuery all;
  auto rows = s->Rows(all);
  ASSERT_TRUE(rows.has_value());
  ASSERT_EQ(rows->size(), 1u);
  const std::string& row = (*rows)[0].row;
  EXPECT_NE(row.find("\"id\":\"t1\""), std::string::npos) << row;
  EXPECT_NE(row.find("The ferry sails every 20 minutes from Pier 3."), std::string::npos) << row;
  EXPECT_NE(row.find("\"retrieved_context_ids\":[\"doc-7\"]"), std::string::npos) << row;
  EXPECT_NE(row.find("Every 20 minutes, from Pier 3."), std::string::npos) << row;
  EXPECT_NE(row.find("\"service\":\"shop\""), std::string::npos) << row;
  EXPECT_NE((*rows)[0].result.find("\"faithfulness\":1"), std::string::npos) << (*rows)[0].result;
  EXPECT_NE(Metrics(*s, kNow + 12).find("tala_traces_received_total 1\n"), std::string::npos);
}

TEST(TraceBufferTest, ATraceWhoseRootNeverComesBecomesARowAfterTheTimeout) {
  TempDir dir;
  ServeOptions o;
  o.trace_timeout = 120;
  auto s = Open(dir.path() + "/t.sqlite", o);
  ASSERT_TRUE(s->IngestTraces(Retrieval("t2"), kNow).has_value());
  ASSERT_TRUE(s->IngestTraces(Chat("t2"), kNow + 5).has_value());
  EXPECT_EQ(*s->FlushTraces(kNow + 100), 0);
  EXPECT_EQ(*s->FlushTraces(kNow + 125), 1);
  EXPECT_EQ(s->pending(), 1);
}

TEST(TraceBufferTest, BufferedSpansSurviveARestartAndCloseAfterIt) {
  TempDir dir;
  const std::string db = dir.path() + "/t.sqlite";
  {
    auto s = Open(db);
    ASSERT_TRUE(s->IngestTraces(Retrieval("t3"), kNow).has_value());
    ASSERT_TRUE(s->IngestTraces(Chat("t3") + "\n", kNow).has_value());
  }
  auto s = Open(db);
  EXPECT_EQ(s->open_traces(), 1);
  ASSERT_TRUE(s->IngestTraces(Root("t3"), kNow + 1).has_value());
  EXPECT_EQ(*s->FlushTraces(kNow + 20), 1);
  RowQuery all;
  ASSERT_EQ(*s->ScorePending(8), 1);
  auto rows = s->Rows(all);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_NE((*rows)[0].row.find("doc-7"), std::string::npos);
}

TEST(TraceBufferTest, LateSpansAndSpansPastTheCapAreRefusedToldAndCounted) {
  TempDir dir;
  ServeOptions o;
  o.max_open_traces = 1;
  auto s = Open(dir.path() + "/t.sqlite", o);
  ASSERT_TRUE(s->IngestTraces(Chat("t4"), kNow).has_value());
  ASSERT_TRUE(s->IngestTraces(Root("t4"), kNow).has_value());
  // A second trace while one is open: refused whole, and the open one still takes spans.
  auto refused = s->IngestTraces(Chat("t5"), kNow);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->accepted, 0);
  EXPECT_EQ(refused->skipped, 1);
  EXPECT_NE(refused->why_skipped.find("--max-open-traces (1)"), std::string::npos)
      << refused->why_skipped;
  auto more = s->IngestTraces(Retrieval("t4"), kNow + 1);
  EXPECT_EQ(more->accepted, 1);
  EXPECT_EQ(*s->FlushTraces(kNow + 30), 1);
  // Spans of a trace that is a row already cannot change it.
  auto late = s->IngestTraces(Retrieval("t4"), kNow + 31);
  ASSERT_TRUE(late.has_value());
  EXPECT_EQ(late->accepted, 0);
  EXPECT_EQ(late->skipped, 1);
  EXPECT_NE(late->why_skipped.find("--trace-linger"), std::string::npos) << late->why_skipped;
  const std::string text = Metrics(*s, kNow + 31);
  EXPECT_NE(text.find("tala_traces_dropped_total{reason=\"late_spans\"} 1\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("tala_traces_dropped_total{reason=\"too_many_open_traces\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("tala_traces_open 0\n"), std::string::npos);
}

TEST(TraceBufferTest, ATraceWithoutAQuestionAndAnAnswerIsCountedNotStored) {
  TempDir dir;
  ServeOptions o;
  o.trace_linger = 0;
  auto s = Open(dir.path() + "/t.sqlite", o);
  ASSERT_TRUE(s->IngestTraces(Retrieval("t6"), kNow).has_value());
  ASSERT_TRUE(s->IngestTraces(Root("t6"), kNow).has_value());
  EXPECT_EQ(*s->FlushTraces(kNow), 1);
  EXPECT_EQ(s->pending(), 0);
  EXPECT_NE(Metrics(*s, kNow).find("tala_traces_dropped_total{reason=\"no_question_or_answer\"} 1"),
            std::string::npos);
}

TEST(TraceBufferTest, AMalformedSpanRefusesTheRequestNamingTheField) {
  TempDir dir;
  auto s = Open(dir.path() + "/t.sqlite");
  auto bad =
      s->IngestTraces(R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"x"}]}]}]})", kNow);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().ToString().find("resourceSpans[0].scopeSpans[0].spans[0].traceId"),
            std::string::npos)
      << bad.error().ToString();
  EXPECT_EQ(s->open_traces(), 0);
}

TEST(ScoringLagTest, TheOldestWaitingRowsAgeIsTheLagAndScoringEndsIt) {
  TempDir dir;
  auto s = Open(dir.path() + "/t.sqlite");
  EXPECT_EQ(s->ScoringLag(kNow), 0);
  ASSERT_TRUE(s->Ingest(R"({"id":"r1","user_input":"q","response":"a"})", kNow).has_value());
  ASSERT_TRUE(s->Ingest(R"({"id":"r2","user_input":"q","response":"a"})", kNow + 4).has_value());
  EXPECT_DOUBLE_EQ(s->ScoringLag(kNow + 5), 5);
  EXPECT_EQ(*s->ScorePending(1), 1);  // r1 scored: r2, received at +4, is the oldest waiting
  EXPECT_DOUBLE_EQ(s->ScoringLag(kNow + 5), 1);
  EXPECT_NE(Metrics(*s, kNow + 5).find("tala_scoring_lag_seconds 1\n"), std::string::npos);
  EXPECT_EQ(*s->ScorePending(8), 1);
  EXPECT_EQ(s->ScoringLag(kNow + 5), 0);
}

}  // namespace
}  // namespace tala
