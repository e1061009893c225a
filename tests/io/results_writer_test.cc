#include <gtest/gtest.h>

#include <cmath>

#include "io/writers/json_text.h"
#include "io/writers/results_jsonl_writer.h"
#include "support/temp_dir.h"

namespace tala::io {
namespace {

Sample MakeSample() {
  Sample s;
  s.id = "row-\"1\"";
  s.metadata = {{"label", "\"right\""}, {"n", "[1,2]"}};
  return s;
}

TEST(ResultsWriterTest, EachRowIsOnDiskBeforeTheNextIsWritten) {
  tala::testing::TempDir dir;
  std::string path = dir.path() + "/r.jsonl";
  auto writer = ResultsJsonlWriter::Open(path, ResultsJsonlWriter::Mode::kTruncate);
  ASSERT_TRUE(writer.has_value());
  Sample s = MakeSample();
  RowResult row{s, {{"faithfulness", MetricValue::Number(0.75, "3 of 4")}}, OkStatus()};
  ASSERT_TRUE(writer->Write(row).ok());
  // Read while the writer is still open: the row must already be there, whole.
  EXPECT_EQ(dir.Read(path),
            "{\"id\":\"row-\\\"1\\\"\",\"scores\":{\"faithfulness\":0.75},\"reasons\":{"
            "\"faithfulness\":\"3 of 4\"},\"digests\":{\"inputs\":\"a03a42daa6ec046d\","
            "\"question\":\"d8156bae0c4243d3\"},\"metadata\":{\"label\":\"right\",\"n\":[1,2]}}\n");
  ASSERT_TRUE(writer->Write(row).ok());
  std::string all = dir.Read(path);
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 2);
}

TEST(ResultsWriterTest, UndefinedAndNanAreNullWithAReason) {
  Sample s = MakeSample();
  s.id = "7";
  s.id_is_number = true;
  RowResult row{
      s,
      {{"a", MetricValue::Undefined("no claims")}, {"b", MetricValue::Number(std::nan(""), "bug")}},
      OkStatus()};
  std::string line = FormatResultLine(row);
  EXPECT_NE(line.find("{\"id\":7,"), std::string::npos);
  EXPECT_NE(line.find("\"a\":null,\"b\":null"), std::string::npos);
  EXPECT_NE(line.find("\"a\":\"no claims\""), std::string::npos);
  EXPECT_NE(line.find("\"b\":\"non-finite value: bug\""), std::string::npos);
  EXPECT_EQ(line.find("nan"), std::string::npos);
}

TEST(ResultsWriterTest, AppendModeKeepsEarlierRows) {
  tala::testing::TempDir dir;
  std::string path = dir.Write("r.jsonl", "{\"id\":1}\n");
  Sample s = MakeSample();
  {
    auto writer = ResultsJsonlWriter::Open(path, ResultsJsonlWriter::Mode::kAppend);
    ASSERT_TRUE(writer->Write({s, {}, OkStatus()}).ok());
  }
  EXPECT_EQ(dir.Read(path).rfind("{\"id\":1}\n", 0), 0u);
}

TEST(ResultsWriterTest, RowFailureIsWrittenAsAnError) {
  Sample s = MakeSample();
  RowResult row{s, {}, Status(ErrorCode::kUnavailable, "server said 503")};
  EXPECT_NE(FormatResultLine(row).find("\"error\":\"server said 503\""), std::string::npos);
}

TEST(ResultsWriterTest, UnwritablePathIsAnIoError) {
  auto writer =
      ResultsJsonlWriter::Open("/nonexistent/dir/r.jsonl", ResultsJsonlWriter::Mode::kTruncate);
  ASSERT_FALSE(writer.has_value());
  EXPECT_EQ(writer.error().code(), ErrorCode::kIoError);
}

TEST(JsonTextTest, EscapesControlCharacters) {
  std::string out;
  AppendJsonString(out, std::string("a\x01\n\"\\", 5));
  EXPECT_EQ(out, "\"a\\u0001\\n\\\"\\\\\"");
}

}  // namespace
}  // namespace tala::io
