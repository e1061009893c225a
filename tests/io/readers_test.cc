#include <gtest/gtest.h>

#include "io/read_all.h"
#include "support/temp_dir.h"

namespace tala::io {
namespace {

using tala::testing::ReadAll;
using tala::testing::TempDir;

TEST(JsonlReaderTest, ReadsRagasFieldsAndKeepsMetadataVerbatim) {
  TempDir dir;
  auto path = dir.Write("d.jsonl", R"({"id":"a1","user_input":"Where?","response":"Delhi",)"
                                   R"("retrieved_contexts":["c1","c2"],"reference":"Delhi",)"
                                   R"("label":"right","score":0.5,"tags":["x",{"k":null}]})"
                                   "\n");
  auto rows = ReadAll(path);
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_TRUE(rows[0].has_value()) << rows[0].error().ToString();
  const Sample& s = *rows[0];
  EXPECT_EQ(s.id, "a1");
  EXPECT_EQ(*s.user_input, "Where?");
  EXPECT_EQ(*s.response, "Delhi");
  EXPECT_EQ(s.retrieved_contexts->size(), 2u);
  ASSERT_EQ(s.metadata.size(), 3u);
  EXPECT_EQ(s.metadata[0].first, "label");
  EXPECT_EQ(s.metadata[0].second, "\"right\"");
  EXPECT_EQ(s.metadata[1].second, "0.5");
  EXPECT_EQ(s.metadata[2].second, R"(["x",{"k":null}])");
}

TEST(JsonlReaderTest, MapsLegacyNames) {
  TempDir dir;
  auto path =
      dir.Write("d.jsonl", R"({"question":"q","answer":"a","contexts":["c"],"ground_truth":"g"})"
                           "\n"
                           R"({"question":"q","ground_truths":["one","two"]})"
                           "\n");
  auto rows = ReadAll(path);
  ASSERT_TRUE(rows[0].has_value());
  EXPECT_EQ(*rows[0]->user_input, "q");
  EXPECT_EQ(*rows[0]->response, "a");
  EXPECT_EQ((*rows[0]->retrieved_contexts)[0], "c");
  EXPECT_EQ(*rows[0]->reference, "g");
  EXPECT_EQ(*rows[1]->reference, "one two");
}

TEST(JsonlReaderTest, MissingIdBecomesTheRowNumber) {
  TempDir dir;
  auto path = dir.Write("d.jsonl", "{\"response\":\"a\"}\n\n{\"response\":\"b\"}\n{\"id\":7}\n");
  auto rows = ReadAll(path);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]->id, "1");
  EXPECT_TRUE(rows[0]->id_is_number);
  EXPECT_EQ(rows[1]->id, "2");
  EXPECT_EQ(rows[1]->line, 3);
  EXPECT_EQ(rows[2]->id, "7");
}

TEST(JsonlReaderTest, AcceptsBomCrlfAndAMissingFinalNewline) {
  TempDir dir;
  auto path = dir.Write("d.jsonl", "\xEF\xBB\xBF{\"response\":\"a\"}\r\n{\"response\":\"b\"}");
  auto rows = ReadAll(path);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].has_value());
  EXPECT_EQ(*rows[1]->response, "b");
}

TEST(JsonlReaderTest, ReadsIdsGradedIdsRubricsAndMultiTurn) {
  TempDir dir;
  auto path = dir.Write(
      "d.jsonl", R"({"retrieved_context_ids":["c1",2],"reference_context_ids":{"c1":2,"c3":1},)"
                 R"("rubrics":{"score1":"bad"},"user_input":[{"type":"human","content":"hi"},)"
                 R"({"type":"ai","content":"","tool_calls":[{"name":"f","args":{}}]}],)"
                 R"("reference_tool_calls":[{"name":"f","args":{}}],"reference_topics":["x"]})"
                 "\n");
  auto rows = ReadAll(path);
  ASSERT_TRUE(rows[0].has_value()) << rows[0].error().ToString();
  const Sample& s = *rows[0];
  EXPECT_EQ((*s.retrieved_context_ids)[1], "2");
  EXPECT_EQ(s.reference_context_grades.at("c1"), 2);
  EXPECT_EQ(s.rubrics->at("score1"), "bad");
  ASSERT_EQ(s.messages.size(), 2u);
  EXPECT_EQ(s.messages[1].type, Message::Type::kAi);
  EXPECT_EQ(s.messages[1].tool_calls_json, R"([{"name":"f","args":{}}])");
  EXPECT_TRUE(s.is_multi_turn());
  EXPECT_EQ(s.reference_topics->size(), 1u);
}

TEST(JsonlReaderTest, NullMeansAbsent) {
  TempDir dir;
  auto rows = ReadAll(dir.Write("d.jsonl", R"({"response":"a","reference":null})"
                                           "\n"));
  EXPECT_FALSE(rows[0]->reference.has_value());
}

TEST(JsonlReaderTest, RowAfterABadRowIsStillRead) {
  TempDir dir;
  auto rows = ReadAll(dir.Write("d.jsonl", "{\"response\":1}\n{\"response\":\"ok\"}\n"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].has_value());
  EXPECT_EQ(*rows[1]->response, "ok");
}

TEST(JsonArrayReaderTest, StreamsRowsWithTheirStartLines) {
  TempDir dir;
  auto path =
      dir.Write("d.json", "[\n  {\"response\": \"a ] , {\"},\n  {\"response\":\n \"b\"}\n]\n");
  auto rows = ReadAll(path);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(*rows[0]->response, "a ] , {");
  EXPECT_EQ(rows[0]->line, 2);
  EXPECT_EQ(rows[1]->line, 3);
  EXPECT_EQ(*rows[1]->response, "b");
}

TEST(JsonArrayReaderTest, EmptyArrayHasNoRows) {
  TempDir dir;
  EXPECT_TRUE(ReadAll(dir.Write("d.json", " [ ] ")).empty());
}

TEST(CsvReaderTest, ReadsQuotedFieldsEmbeddedNewlinesAndJsonLists) {
  TempDir dir;
  auto path = dir.Write(
      "d.csv",
      "id,question,answer,contexts,note\r\n"
      "1,\"Who, then?\",\"He said \"\"no\"\"\",\"[\"\"c1\"\",\"\"c2\"\"]\",\"two\nlines\"\r\n"
      "2,q2,a2,[],\n");
  auto rows = ReadAll(path);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_TRUE(rows[0].has_value()) << rows[0].error().ToString();
  EXPECT_EQ(*rows[0]->user_input, "Who, then?");
  EXPECT_EQ(*rows[0]->response, "He said \"no\"");
  EXPECT_EQ(rows[0]->retrieved_contexts->size(), 2u);
  EXPECT_EQ(rows[0]->metadata[0].second, "\"two\\nlines\"");
  ASSERT_TRUE(rows[1].has_value()) << rows[1].error().ToString();
  EXPECT_EQ(rows[1]->line, 4);
  EXPECT_TRUE(rows[1]->retrieved_contexts->empty());
  EXPECT_TRUE(rows[1]->metadata.empty());  // an empty cell is absent
}

TEST(DatasetReaderTest, FormatComesFromTheExtensionOrTheOption) {
  EXPECT_EQ(FormatFromPath("x.csv"), DatasetFormat::kCsv);
  EXPECT_EQ(FormatFromPath("x.json"), DatasetFormat::kJsonArray);
  EXPECT_EQ(FormatFromPath("x.jsonl"), DatasetFormat::kJsonl);
  EXPECT_EQ(FormatFromPath("-"), DatasetFormat::kJsonl);
  TempDir dir;
  ReaderOptions csv;
  csv.format = DatasetFormat::kCsv;
  auto rows = ReadAll(dir.Write("d.txt", "response\nhello\n"), csv);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(*rows[0]->response, "hello");
  EXPECT_FALSE(ParseDatasetFormat("xml").has_value());
}

TEST(DatasetReaderTest, MissingFileIsNotFoundAndUnreadableIsAnIoError) {
  auto rows = ReadAll("/nonexistent/tala/d.jsonl");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].error().code(), ErrorCode::kNotFound);
  TempDir dir;
  rows = ReadAll(dir.path());  // a folder opens but cannot be read as a file
  ASSERT_FALSE(rows.empty());
  EXPECT_FALSE(rows.back().has_value());
}

TEST(JsonlReaderTest, LongLinesAcrossBufferRefillsAreRead) {
  TempDir dir;
  std::string big(3u << 20, 'x');  // longer than one read chunk
  auto rows =
      ReadAll(dir.Write("d.jsonl", "{\"response\":\"" + big + "\"}\n{\"response\":\"y\"}\n"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]->response->size(), big.size());
  EXPECT_EQ(rows[1]->line, 2);
}

}  // namespace
}  // namespace tala::io
