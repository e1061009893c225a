// KeptRows (src/engine/kept_rows.h): a shard's rows as its tally counted them survive their
// binary form bit for bit, and bytes that are not such rows are refused with the file named.

#include "engine/kept_rows.h"

#include <gtest/gtest.h>

#include "analysis/diagnosis.h"

namespace tala {
namespace {

int DiagnosisAt(analysis::Diagnosis d) {
  const auto& all = analysis::AllDiagnoses();
  return static_cast<int>(std::find(all.begin(), all.end(), d) - all.begin());
}

KeptRows TwoRows() {
  KeptRows rows({"faithfulness", "hit_rate"});
  using Cell = KeptRows::Cell;
  rows.Add({{Cell::kScored, 0.1 + 0.2}, {Cell::kUndefined, 0}},
           DiagnosisAt(analysis::Diagnosis::kHealthy), false, {"r1", "", "", ""});
  rows.Add({{Cell::kFailed, 0}, {Cell::kScored, 1}}, DiagnosisAt(analysis::Diagnosis::kHealthy),
           true, {"r2", "Why?", "", "judge: timed out"});
  return rows;
}

TEST(KeptRowsTest, TheBinaryFormGivesBackEveryRowBitForBit) {
  const KeptRows rows = TwoRows();
  auto back = KeptRows::Decode(rows.Encode(), {"faithfulness", "hit_rate"}, "x.shard.rows");
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ(back->cell(0, 0), KeptRows::Cell::kScored);
  EXPECT_EQ(back->value(0, 0), 0.1 + 0.2);  // not rounded through text
  EXPECT_EQ(back->cell(0, 1), KeptRows::Cell::kUndefined);
  EXPECT_EQ(back->cell(1, 0), KeptRows::Cell::kFailed);
  EXPECT_EQ(back->value(1, 1), 1.0);
  EXPECT_FALSE(back->failed(0));
  EXPECT_TRUE(back->failed(1));
  EXPECT_EQ(back->text(0), nullptr) << "a healthy row that did not fail keeps no text";
  ASSERT_NE(back->text(1), nullptr);
  EXPECT_EQ(back->text(1)->failure_reason, "judge: timed out");
  EXPECT_EQ(back->diagnosis(1), DiagnosisAt(analysis::Diagnosis::kHealthy));
}

TEST(KeptRowsTest, BytesThatAreNotSuchRowsAreRefusedNamingTheFile) {
  const std::string bytes = TwoRows().Encode();
  for (const std::string& bad :
       {std::string("not rows"), bytes.substr(0, bytes.size() - 3), bytes + "x"}) {
    auto back = KeptRows::Decode(bad, {"faithfulness", "hit_rate"}, "x.shard.rows");
    ASSERT_FALSE(back.has_value());
    EXPECT_EQ(back.error().code(), ErrorCode::kDataError);
    EXPECT_NE(back.error().ToString().find("x.shard.rows"), std::string::npos);
  }
  auto other = KeptRows::Decode(bytes, {"faithfulness"}, "x.shard.rows");
  ASSERT_FALSE(other.has_value());
  EXPECT_NE(other.error().message().find("other metrics"), std::string::npos);
}

}  // namespace
}  // namespace tala
