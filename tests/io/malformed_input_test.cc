// Every reader on malformed input: each case names the error it must produce, with its line and
// field, and the rows around a bad row must still be read.

#include <gtest/gtest.h>

#include "io/read_all.h"
#include "support/temp_dir.h"

namespace tala::io {
namespace {

struct MalformedCase {
  const char* name;
  const char* file;  // file name (its extension picks the format)
  std::string content;
  int64_t line;         // line the error must name
  const char* field;    // field it must name ("" for none)
  const char* message;  // text the message must contain
  size_t max_row_bytes = 64u << 20;
};

std::string R(const char* s) { return std::string(s) + "\n"; }

const MalformedCase kCases[] = {
    {"BadJson", "d.jsonl", R("{\"response\": tru}"), 1, "", "invalid"},
    {"TruncatedLastLine", "d.jsonl", R("{\"response\":\"a\"}") + "{\"response\":\"b", 2, "",
     "truncated"},
    {"NotAnObject", "d.jsonl", R("[1,2]"), 1, "", "expected a JSON object per row, got an array"},
    {"ContextsAsString", "d.jsonl", R("{}") + R("{\"retrieved_contexts\":\"c\"}"), 2,
     "retrieved_contexts", "expected an array of strings, got a string"},
    {"ContextItemNumber", "d.jsonl", R("{\"retrieved_contexts\":[\"a\",3]}"), 1,
     "retrieved_contexts[1]", "expected a string, got a number"},
    {"ResponseNumber", "d.jsonl", R("{\"response\":42}"), 1, "response",
     "expected a string, got a number"},
    {"UserInputObject", "d.jsonl", R("{\"user_input\":{}}"), 1, "user_input",
     "expected a string or a list of messages"},
    {"IdBoolean", "d.jsonl", R("{\"id\":true}"), 1, "id", "expected a string or an integer"},
    {"DuplicateAlias", "d.jsonl", R("{\"question\":\"a\",\"user_input\":\"b\"}"), 1, "user_input",
     "given together with \"question\""},
    {"DuplicateAliasAnswer", "d.jsonl", R("{\"response\":\"a\",\"answer\":\"b\"}"), 1, "answer",
     "same field"},
    {"GroundTruthTwice", "d.jsonl", R("{\"ground_truth\":\"a\",\"ground_truths\":[\"b\"]}"), 1,
     "ground_truths", "same field"},
    {"DuplicateKey", "d.jsonl", R("{\"response\":\"a\",\"response\":\"b\"}"), 1, "response",
     "given twice"},
    {"InvalidUtf8", "d.jsonl", R("{\"response\":\"caf\xC3\x28\"}"), 1, "", "invalid UTF-8"},
    {"HugeLine", "d.jsonl",
     R("{}") + R(("{\"response\":\"" + std::string(5000, 'x') + "\"}").c_str()), 2, "",
     "longer than", 1024},
    {"BadMessageType", "d.jsonl", R("{\"user_input\":[{\"type\":\"robot\",\"content\":\"x\"}]}"), 1,
     "user_input[0].type", "expected human, ai or tool"},
    {"RubricsNotStrings", "d.jsonl", R("{\"rubrics\":{\"s1\":1}}"), 1, "rubrics.s1",
     "expected a string"},
    {"GradeNotNumber", "d.jsonl", R("{\"reference_context_ids\":{\"c1\":\"high\"}}"), 1,
     "reference_context_ids.c1", "expected a number"},
    {"VerdictLengthMismatch", "d.jsonl",
     R("{\"retrieved_contexts\":[\"a\",\"b\"],\"verdicts\":{\"chunk_relevant\":[true]}}"), 1,
     "verdicts.chunk_relevant", "has 1 entries but the row has 2"},
    {"VerdictIndexPastLast", "d.jsonl",
     R("{\"retrieved_contexts\":[\"a\"],\"verdicts\":{\"response_claims\":[{\"text\":\"x\","
       "\"supported_by\":[1]}]}}"),
     1, "verdicts.response_claims[0].supported_by", "outside"},
    {"VerdictUnknownKey", "d.jsonl", R("{\"verdicts\":{\"chunks\":[true]}}"), 1, "verdicts.chunks",
     "unknown verdict field"},
    {"VerdictFlagNotBool", "d.jsonl",
     R("{\"retrieved_contexts\":[\"a\"],\"verdicts\":{\"chunk_relevant\":[\"yes\"]}}"), 1,
     "verdicts.chunk_relevant[0]", "true/false"},
    {"CosineOutOfRange", "d.jsonl",
     R("{\"verdicts\":{\"generated_questions\":[{\"text\":\"q\",\"cosine\":1.5}]}}"), 1,
     "verdicts.generated_questions[0].cosine", "[-1, 1]"},
    {"EmptyFileHasNoRows", "d.jsonl", "", 0, "", ""},
    {"JsonArrayNotArray", "d.json", R("{\"response\":\"a\"}"), 1, "", "expected a JSON array"},
    {"JsonArrayTruncated", "d.json", "[{\"response\":\"a\"},\n{\"response\":", 2, "", "truncated"},
    {"JsonArrayMissingComma", "d.json", "[{\"response\":\"a\"}\n{\"response\":\"b\"}]", 2, "",
     "expected ',' or ']'"},
    {"JsonArrayWrongType", "d.json", "[{\"response\":\"a\"},\n {\"response\":[]}]", 2, "response",
     "expected a string, got an array"},
    {"CsvUnclosedQuote", "d.csv", "response,id\n\"abc,1\n", 2, "", "not closed"},
    {"CsvWrongFieldCount", "d.csv", "response,id\na,1,extra\n", 2, "",
     "3 fields but the header has 2"},
    {"CsvContextsPlainText", "d.csv", "response,contexts\na,just text\n", 2, "contexts",
     "expected JSON in this CSV cell"},
    {"CsvContextsWrongJsonType", "d.csv", "response,contexts\na,\"{\"\"k\"\":1}\"\n", 2, "contexts",
     "expected an array of strings, got an object"},
    {"CsvTextAfterQuote", "d.csv", "response\n\"a\"b\n", 2, "", "after a closing quote"},
    {"CsvInvalidUtf8", "d.csv", "response\nbad\xFF\n", 2, "response", "invalid UTF-8"},
    {"CsvRepeatedHeader", "d.csv", "response,response\na,b\n", 1, "", "repeats a column"},
    {"CsvEmbeddedNewlineThenBadRow", "d.csv", "response,id\n\"two\nlines\",1\nx\n", 4, "",
     "1 fields but the header has 2"},
};

class MalformedInputTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedInputTest, ReportsLineFieldAndWhatWasExpected) {
  const MalformedCase& c = GetParam();
  tala::testing::TempDir dir;
  ReaderOptions options;
  options.max_row_bytes = c.max_row_bytes;
  auto rows = tala::testing::ReadAll(dir.Write(c.file, c.content), options);
  if (std::string(c.name) == "EmptyFileHasNoRows") {
    EXPECT_TRUE(rows.empty());  // the callers (validate, eval) report "holds no rows"
    return;
  }
  const Status* error = nullptr;
  for (const auto& r : rows) {
    if (!r.has_value()) {
      error = &r.error();
      break;
    }
  }
  ASSERT_NE(error, nullptr) << "no error for " << c.name;
  EXPECT_EQ(error->code(), ErrorCode::kDataError) << error->ToString();
  EXPECT_EQ(error->where().line, c.line) << error->ToString();
  EXPECT_EQ(error->where().field, c.field) << error->ToString();
  EXPECT_NE(error->message().find(c.message), std::string::npos) << error->ToString();
  EXPECT_NE(error->ToString().find(c.file), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(AllReaders, MalformedInputTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tala::io
