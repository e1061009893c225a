// End-to-end: tala align (issue 55 item 1): a threshold fitted to people's labels by
// cross-validation, written as a judge profile only when held-out folds show a gain; tala eval
// --judge-profile diagnoses with it and records it; tala compare tells runs made with different
// profiles apart.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "cli/run_tala.h"
#include "support/temp_dir.h"

namespace tala {
namespace {

using tala::testing::RunTala;
using tala::testing::TempDir;

// 120 rows whose faithfulness spreads over [0, 1]; people call a row right when its score is at
// least 0.9 (this project's line is stricter than tala's default 0.7), but for a few slips.
struct Labelled {
  std::string results, labels, shuffled;
};

Labelled Write(TempDir& dir) {
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> u(0, 1);
  std::string results, labels = "{\"tala_labels\":{\"pick\":\"random\",\"seed\":1}}\n";
  std::vector<int> verdicts;
  for (int i = 0; i < 120; ++i) {
    const double score = u(rng);
    const bool right = (score >= 0.9) != (u(rng) < 0.03);
    results += "{\"id\":\"r" + std::to_string(i) +
               "\",\"scores\":{\"faithfulness\":" + std::to_string(score) + "}}\n";
    verdicts.push_back(right ? 1 : 0);
  }
  std::string shuffled = labels;
  std::vector<int> mixed = verdicts;
  std::shuffle(mixed.begin(), mixed.end(), rng);
  for (int i = 0; i < 120; ++i) {
    labels += "{\"id\":\"r" + std::to_string(i) +
              "\",\"faithfulness\":" + std::to_string(verdicts[i]) + "}\n";
    shuffled += "{\"id\":\"r" + std::to_string(i) +
                "\",\"faithfulness\":" + std::to_string(mixed[i]) + "}\n";
  }
  return {dir.Write("results.jsonl", results), dir.Write("labels.jsonl", labels),
          dir.Write("shuffled.jsonl", shuffled)};
}

TEST(AlignTest, AFittedThresholdGainsOnHeldOutFoldsAndShuffledLabelsGainNothing) {
  TempDir dir;
  const Labelled l = Write(dir);
  const std::string profile = dir.path() + "/profile.json";
  auto r = RunTala("align " + l.results + " --labels " + l.labels + " -o " + profile + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("the fitted threshold agrees with people more"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("threshold 0.9"), std::string::npos) << r.out;
  ASSERT_TRUE(std::filesystem::exists(profile));
  // The same labels shuffled: nothing to learn, and nothing written.
  const std::string none = dir.path() + "/none.json";
  r = RunTala("align " + l.results + " --labels " + l.shuffled + " -o " + none + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("no gain on held-out folds"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(none));
  r = RunTala("align " + l.results + " --labels " + l.shuffled + " --force -o " + none + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  // Too few labels is said, not guessed.
  r = RunTala("align " + l.results + " --labels " +
              dir.Write("few.jsonl", "{\"id\":\"r1\",\"faithfulness\":1}\n") + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("nothing to align"), std::string::npos) << r.out;
}

TEST(AlignTest, EvalDiagnosesWithTheProfileAndCompareTellsProfilesApart) {
  TempDir dir;
  const Labelled l = Write(dir);
  const std::string profile = dir.path() + "/profile.json";
  ASSERT_EQ(RunTala("align " + l.results + " --labels " + l.labels + " -o " + profile).exit_code,
            0);
  const std::string data = dir.Write(
      "d.jsonl",
      "{\"id\":\"a\",\"user_input\":\"Where does the ferry leave?\",\"response\":\"The ferry "
      "leaves from Pier 3 at noon.\",\"retrieved_contexts\":[\"The ferry leaves from Pier 3.\"]}\n"
      "{\"id\":\"b\",\"user_input\":\"Where does the ferry leave?\",\"response\":\"The ferry "
      "leaves from Pier 3.\",\"retrieved_contexts\":[\"The ferry leaves from Pier 3.\"]}\n");
  const std::string plain = dir.path() + "/plain.jsonl", fitted = dir.path() + "/fitted.jsonl";
  ASSERT_EQ(RunTala("eval " + data + " -m faithfulness -q -o " + plain).exit_code, 0);
  auto r = RunTala("eval " + data + " -m faithfulness -q --judge-profile " + profile + " -o " +
                   fitted + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(fitted);
  const std::string manifest((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  EXPECT_NE(manifest.find("\"judge_profile\":\""), std::string::npos) << manifest;
  auto compared = RunTala("compare " + plain + " " + fitted + " 2>&1");
  EXPECT_EQ(compared.exit_code, 2) << compared.out;
  EXPECT_NE(compared.out.find("judge profile none vs"), std::string::npos) << compared.out;
  compared = RunTala("compare " + plain + " " + fitted + " --allow-version-mismatch 2>&1");
  EXPECT_EQ(compared.exit_code, 0) << compared.out;
  // A file that is not a profile is named.
  r = RunTala("eval " + data + " -m faithfulness --judge-profile " + data + " -o " + dir.path() +
              "/x.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("not a judge profile"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tala
